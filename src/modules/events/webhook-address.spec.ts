import type { LookupAddress } from 'node:dns';
import { checkedLookup, isPublicAddress, MAX_LOOKUPS_IN_FLIGHT, RefusedAddressError, refusedLiteral, Resolve, sharedResolver } from './webhook-address';

describe(isPublicAddress.name, () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.10',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '2001:db8::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe(refusedLiteral.name, () => {
  it('refuses a non-public literal host only when public addresses are required', () => {
    expect(refusedLiteral('127.0.0.1', true)).toBe(true);
    expect(refusedLiteral('[::1]', true)).toBe(true);
    expect(refusedLiteral('127.0.0.1', false)).toBe(false);
    expect(refusedLiteral('8.8.8.8', true)).toBe(false);
    // A name is checked by the lookup, where it resolves.
    expect(refusedLiteral('localhost', true)).toBe(false);
  });
});

describe(checkedLookup.name, () => {
  const lookup = (publicOnly: boolean, all: boolean) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
      checkedLookup(publicOnly)('localhost', { all }, (error, address) => resolve({ error, address })),
    );

  it('refuses a name resolving to loopback when public addresses are required', async () => {
    const { error } = await lookup(true, false);
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect(error?.code).toBe('EREFUSEDADDRESS');
  });

  it('returns the addresses it resolved otherwise, one or all as asked', async () => {
    const one = await lookup(false, false);
    expect(one.error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(one.address);
    const all = await lookup(false, true);
    expect(Array.isArray(all.address) && all.address.length > 0).toBe(true);
  });
});

describe(sharedResolver.name, () => {
  /** A resolver that answers only when told: each call's host and its callback. */
  function heldResolver() {
    const calls: Array<{ hostname: string; answer: (addresses: LookupAddress[]) => void }> = [];
    const resolve: Resolve = (hostname, _options, callback) => calls.push({ hostname, answer: (addresses) => callback(null, addresses) });
    return { calls, resolve };
  }
  const ask = (resolver: ReturnType<typeof sharedResolver>, hostname: string) =>
    new Promise<LookupAddress[]>((resolve, reject) => resolver(hostname, {}, (error, addresses) => (error ? reject(error) : resolve(addresses))));

  it("runs at most MAX_LOOKUPS_IN_FLIGHT look-ups at once: a name that never answers cannot fill libuv's pool", async () => {
    const held = heldResolver();
    const resolver = sharedResolver(held.resolve);
    const answers = ['a.test', 'b.test', 'c.test', 'd.test'].map((host) => ask(resolver, host));
    expect(MAX_LOOKUPS_IN_FLIGHT).toBe(2);
    expect(held.calls.map((c) => c.hostname)).toEqual(['a.test', 'b.test']);
    held.calls[1]?.answer([{ address: '203.0.113.2', family: 4 }]);
    expect(held.calls.map((c) => c.hostname)).toEqual(['a.test', 'b.test', 'c.test']);
    held.calls[2]?.answer([{ address: '203.0.113.3', family: 4 }]);
    held.calls[3]?.answer([{ address: '203.0.113.4', family: 4 }]);
    expect(await answers[1]).toEqual([{ address: '203.0.113.2', family: 4 }]);
    expect(await answers[3]).toEqual([{ address: '203.0.113.4', family: 4 }]);
    // a.test is still held: the others went through the one slot left.
    held.calls[0]?.answer([{ address: '203.0.113.1', family: 4 }]);
    expect(await answers[0]).toEqual([{ address: '203.0.113.1', family: 4 }]);
  });

  it('resolves a name once for the connections that ask for it together', async () => {
    const held = heldResolver();
    const resolver = sharedResolver(held.resolve);
    const answers = Array.from({ length: 10 }, () => ask(resolver, 'partner.test'));
    expect(held.calls).toHaveLength(1);
    held.calls[0]?.answer([{ address: '203.0.113.9', family: 4 }]);
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 10 }, () => [{ address: '203.0.113.9', family: 4 }]));
    // Answered: the next connection resolves again (no cache beyond the look-up in flight).
    void ask(resolver, 'partner.test');
    expect(held.calls).toHaveLength(2);
  });

  it('frees the slot of a look-up that throws, and answers its error', async () => {
    const resolver = sharedResolver(() => {
      throw Object.assign(new TypeError('bad hostname'), { code: 'ERR_INVALID_ARG_VALUE' });
    }, 1);
    await expect(ask(resolver, 'x')).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
    await expect(ask(resolver, 'y')).rejects.toMatchObject({ code: 'ERR_INVALID_ARG_VALUE' });
  });
});
