// The address a delivery connects to for a URL a client gave (an email logo, a webhook): the host
// resolved, every answer public unicast (wire/publicAddress.ts) unless private ones are allowed, and
// the first answer pinned, so the connection goes to the address that was checked whatever DNS says
// a moment later (rebinding).
import dns from 'node:dns/promises';
import net from 'node:net';
import { bareHost, isPublicUnicast } from '../wire/publicAddress.ts';

export interface PinnedAddress {
  address: string;
  family: number;
}

/** Why a host cannot be connected to: its name does not resolve (may pass), or it resolves to a refused address. */
export class HostRefused extends Error {
  override name = 'HostRefused';
  constructor(
    message: string,
    /** The name does not resolve now: a later attempt may succeed. */
    readonly temporary: boolean,
  ) {
    super(message);
  }
}

/** The checked address to connect to for `hostname`; a HostRefused saying why not. */
export async function resolvePublicAddress(hostname: string, allowPrivate: boolean, what: string): Promise<PinnedAddress> {
  const host = bareHost(hostname);
  let addresses: PinnedAddress[];
  try {
    addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await dns.lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new HostRefused(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? 'lookup failed'}`, true);
  }
  // Every answer must be public: otherwise a name with one public and one private record could pick either.
  if (!allowPrivate && !addresses.every((a) => isPublicUnicast(a.address))) {
    throw new HostRefused(
      `${host} resolves to an address that is not public unicast (private, loopback, link-local, reserved, or ` +
        `carrying an IPv4 address); ${what} public addresses only`,
      false,
    );
  }
  if (addresses.length === 0) throw new HostRefused(`cannot resolve ${host}`, true);
  return addresses[0]!;
}
