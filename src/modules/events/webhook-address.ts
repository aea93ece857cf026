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

/** Node's resolver: `dns.lookup`, getaddrinfo on libuv's thread pool (which honours /etc/hosts and nsswitch). */
export type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Webhook look-ups in flight at once, of libuv's four pool threads. getaddrinfo cannot be cancelled:
 * a partner's name whose DNS server does not answer holds its thread for the resolver's whole
 * timeout (resolv.conf: 5 s a try, two tries a server), long after the attempt timed out. Uncapped,
 * a few such names filled the pool, and every token's signature (WebCrypto), the secrets' scrypt and
 * file I/O queued behind them. Capped, a hung name delays other webhooks' new connections at worst
 * (a keep-alive socket needs no look-up), never the API.
 */
export const MAX_LOOKUPS_IN_FLIGHT = 2;

/** What a connection asks of its look-up that changes the answer. */
type Asked = Pick<LookupOptions, 'family' | 'hints'>;

/**
 * Resolves names with at most `limit` look-ups running, and one look-up per name at a time: the
 * attempts that open connections to the same host together (a burst to one partner) share its answer.
 * By hand, a dozen lines: the queue is this function's, and a library's limiter would add a dependency
 * (p-limit is ES-module only) for no more than this.
 */
export function sharedResolver(resolve: Resolve = dnsLookup as Resolve, limit = MAX_LOOKUPS_IN_FLIGHT) {
  const pending = new Map<string, Array<(error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void>>();
  const waiting: Array<() => void> = [];
  let running = 0;
  const start = (key: string, hostname: string, options: Asked) => {
    running++;
    const done = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      const callbacks = pending.get(key) ?? [];
      pending.delete(key);
      running--;
      waiting.shift()?.();
      for (const callback of callbacks) callback(error, addresses);
    };
    try {
      resolve(hostname, { family: options.family, hints: options.hints, all: true }, done);
    } catch (error) {
      // dns.lookup throws on arguments it refuses: answered like a failed look-up, its slot freed.
      done(error as NodeJS.ErrnoException, []);
    }
  };
  return (hostname: string, options: Asked, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void): void => {
    const key = `${String(options.family ?? 0)} ${String(options.hints ?? 0)} ${hostname}`;
    const joined = pending.get(key);
    if (joined) return void joined.push(callback);
    pending.set(key, [callback]);
    if (running < limit) start(key, hostname, options);
    else waiting.push(() => start(key, hostname, options));
  };
}

/**
 * A `lookup` for `http.request` (CONTRACT section 7): resolves the host once and, when `publicOnly`,
 * refuses the connection unless every address is public. The socket connects to an address returned
 * here, so the address checked is the address connected to (no second resolution to rebind).
 */
export function checkedLookup(publicOnly: boolean, resolver = sharedResolver()) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname, options, (error, addresses) => {
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
