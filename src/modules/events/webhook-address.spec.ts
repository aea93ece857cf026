import type { LookupAddress } from 'node:dns';
import { checkedLookup, isPublicAddress, RefusedAddressError, refusedLiteral } from './webhook-address';

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
