import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';

/** Thrown (through the connection's lookup) when a webhook host resolves to an address production does not call. */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS';
  constructor() {
    super('webhook address refused');
    this.name = 'RefusedAddressError';
  }
}

/**
 * Only globally routable unicast addresses: ipaddr.js names every special-purpose range (loopback,
 * RFC 1918 private, link-local, unique-local, CGNAT, multicast, documentation, 6to4, Teredo...), and an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request` (CONTRACT section 7): resolves the host once and, when `publicOnly`,
 * refuses the connection unless every address is public. The socket connects to an address returned
 * here, so the address checked is the address connected to (no second resolution to rebind).
 */
export function checkedLookup(publicOnly: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0 || (publicOnly && !addresses.every((a) => isPublicAddress(a.address)))) return callback(new RefusedAddressError(), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** A literal IP host is connected to without a lookup: it is checked here instead. */
export function refusedLiteral(hostname: string, publicOnly: boolean): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return publicOnly && isIP(bare) !== 0 && !isPublicAddress(bare);
}
