import { createHash, randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { KeyStore } from './key-store';
import { PayloadFingerprint } from './payload-fingerprint';

const keys = (key = randomBytes(32)) => ({ blindIndexKey: key }) as unknown as KeyStore;

describe(PayloadFingerprint.name, () => {
  const payload = { requestId: 'r-1', encryptedUserData: { firstName: 'José', identifyingData: { ssn: '123456789' } } };

  it('is keyed: the same payload under another key gives another fingerprint, and none is the plain SHA-256', () => {
    const sut = new PayloadFingerprint(keys());
    const fingerprint = sut.of('enrollment', payload);
    expect(fingerprint).toMatch(/^h1:[A-Za-z0-9_-]{43}$/);
    expect(new PayloadFingerprint(keys()).of('enrollment', payload)).not.toBe(fingerprint);
    expect(fingerprint).not.toContain(
      createHash('sha256')
        .update(`enrollment\n${canonicalize(payload)}`)
        .digest('hex'),
    );
  });

  it('ignores key order; the operation is part of it', () => {
    const sut = new PayloadFingerprint(keys());
    const reordered = { encryptedUserData: { identifyingData: { ssn: '123456789' }, firstName: 'José' }, requestId: 'r-1' };
    expect(sut.of('enrollment', reordered)).toBe(sut.of('enrollment', payload));
    expect(sut.of('other', payload)).not.toBe(sut.of('enrollment', payload));
  });

  it('still matches a fingerprint stored before it was keyed (plain SHA-256 hex), and nothing else', () => {
    const sut = new PayloadFingerprint(keys());
    const legacy = createHash('sha256')
      .update(`enrollment\n${canonicalize(payload)}`)
      .digest('hex');
    expect(sut.matches(legacy, 'enrollment', payload)).toBe(true);
    expect(sut.matches(legacy, 'enrollment', { ...payload, requestId: 'r-2' })).toBe(false);
    expect(sut.matches(sut.of('enrollment', payload), 'enrollment', payload)).toBe(true);
    expect(sut.matches(sut.of('enrollment', payload), 'enrollment', { ...payload, requestId: 'r-2' })).toBe(false);
  });

  it('ofBody: the same fingerprint as of(), computed once per body object and operation', () => {
    const sut = new PayloadFingerprint(keys());
    const computed = jest.spyOn(sut, 'of');
    const body = JSON.parse(JSON.stringify(payload)) as object;
    expect(sut.ofBody('enrollment', body)).toBe(sut.of('enrollment', payload));
    computed.mockClear();
    expect(sut.ofBody('enrollment', body)).toBe(sut.of('enrollment', payload));
    expect(computed).toHaveBeenCalledTimes(1);
    // Another operation on the same object, another object with the same data, a value that is not an object: computed.
    computed.mockClear();
    expect(sut.ofBody('other', body)).toBe(sut.of('other', payload));
    expect(sut.ofBody('enrollment', { ...payload })).toBe(sut.of('enrollment', payload));
    expect(sut.ofBody('enrollment', 'text')).toBe(sut.of('enrollment', 'text'));
    expect(computed).toHaveBeenCalledTimes(6);
  });
});
