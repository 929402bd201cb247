// Who a request comes from, and whether that address is on a list (SIGNET_ADMIN_HOST,
// SIGNET_METRICS_HOST): exact addresses, CIDR ranges or `*`, IPv4-mapped IPv6 judged as IPv4; and
// which connections count as one client for SIGNET_MAX_CONNECTIONS_PER_ADDRESS.
// With SIGNET_TRUSTED_PROXIES set, Fastify takes the client from X-Forwarded-For (request.ip).
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** An address as one family: ::ffff:a.b.c.d becomes a.b.c.d. Undefined when it is not an IP address. */
function parseAddress(value: string): Address | undefined {
  if (!ipaddr.isValid(value)) return undefined;
  return ipaddr.process(value);
}

/** A predicate for "is this client address on the list"; `*` admits any. */
export function addressMatcher(list: readonly string[]): (address: string | undefined) => boolean {
  if (list.includes('*')) return () => true;
  const ranges = list.map((item): [Address, number] => {
    if (item.includes('/')) {
      const [range, bits] = ipaddr.parseCIDR(item);
      // A mapped range (::ffff:10.0.0.0/104) is the IPv4 range it carries.
      if (range.kind() === 'ipv6' && (range as ipaddr.IPv6).isIPv4MappedAddress()) {
        return [(range as ipaddr.IPv6).toIPv4Address(), bits - 96];
      }
      return [range, bits];
    }
    const address = parseAddress(item)!;
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  });
  return (value) => {
    const address = value === undefined ? undefined : parseAddress(value);
    if (!address) return false;
    return ranges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  };
}

/**
 * The client a connection is counted against: an IPv4 address, or an IPv6 /64, which is what one
 * host or network is given (a client holding a /64 could otherwise take 2^64 addresses).
 */
export function connectionClient(value: string | undefined): string {
  const address = value === undefined ? undefined : parseAddress(value);
  if (!address) return String(value);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
