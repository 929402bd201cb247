// Which addresses the server may connect to on a client's behalf (an email logo, a webhook): public
// unicast only, so that a URL a client gives cannot reach the deployment's own network (loopback,
// private ranges, link-local cloud metadata) — server-side request forgery. Pure: the resolution of
// a name and the connection to the checked address belong to their callers (delivery/publicHost.ts).
import net from 'node:net';
import ipaddr from 'ipaddr.js';

// IPv6 global unicast (RFC 4291 §2.4). Outside it lie the forms that carry an IPv4 address
// (::a.b.c.d, 64:ff9b::/96 NAT64) and the local scopes (ULA, link-local, multicast).
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether `address` (an IP address as text) is public unicast, as ipaddr.js classifies it. Inside
 * 2000::/3 it refuses 6to4 (2002::/16) and Teredo, which embed an IPv4 address, and the
 * documentation and other special ranges. IPv4-mapped (::ffff:a.b.c.d) is judged as its IPv4 address.
 */
export function isPublicUnicast(address: string): boolean {
  // net.isIP first: ipaddr.js also reads forms such as 0x7f.1 that are not what a socket connects to.
  if (net.isIP(address) === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast';
}

/** A URL's hostname without the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/**
 * Why a URL's host is refused before any lookup: an IP literal that is not public unicast, or a name
 * that always means this machine (localhost, *.localhost). Undefined when it may be looked up.
 */
export function literalHostProblem(hostname: string): string | undefined {
  const host = bareHost(hostname).toLowerCase();
  if (net.isIP(host)) {
    return isPublicUnicast(host) ? undefined : `${host} is not a public unicast address (private, loopback, link-local, reserved, or carrying an IPv4 address)`;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is this machine (loopback)`;
  return undefined;
}
