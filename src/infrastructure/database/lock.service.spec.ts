import { createHash } from 'node:crypto';
import { lockKey } from './lock.service';

describe('lockKey', () => {
  it('is the first 8 bytes of the name’s SHA-256, signed: the same key in every instance and version', () => {
    // Instances of two versions running side by side must take the same keys for the same names.
    expect(lockKey('account:16027756-f2b7-4fa9-9055-b43a409fd141')).toBe('5676925395481914300');
    const name = 'requestId:acme:sandbox:r-1';
    expect(lockKey(name)).toBe(createHash('sha256').update(name).digest().readBigInt64BE(0).toString());
  });
});
