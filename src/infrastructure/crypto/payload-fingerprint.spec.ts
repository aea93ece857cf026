import { createHash, createSecretKey, randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { KeyStore } from './key-store';
import { PayloadFingerprint } from './payload-fingerprint';
import { mockOf } from '../../../test/support/mock-of';

const keys = () => mockOf<KeyStore>({ blindIndexKey: createSecretKey(randomBytes(32)) });

describe(PayloadFingerprint.name, () => {
  const payload = { requestId: 'r-1', encryptedUserData: { firstName: 'José', identifyingData: { ssn: '123456789' } } };

  it('is keyed: the same payload under another key gives another fingerprint, and none is a plain SHA-256 of it', () => {
    const sut = new PayloadFingerprint(keys());
    const fingerprint = sut.of('enrollment', payload);
    expect(fingerprint).toMatch(/^h1:[A-Za-z0-9_-]{43}$/);
    expect(new PayloadFingerprint(keys()).of('enrollment', payload)).not.toBe(fingerprint);
    // Without the key, anyone could test a guessed SSN against a stored fingerprint: its 32 bytes are
    // not the SHA-256 of the canonical payload, with or without the operation and the label.
    const digest = Buffer.from(fingerprint.slice('h1:'.length), 'base64url');
    expect(digest).toHaveLength(32);
    for (const input of [canonicalize(payload), `enrollment\n${canonicalize(payload)}`, `fingerprint\nenrollment\n${canonicalize(payload)}`])
      expect(
        digest.equals(
          createHash('sha256')
            .update(input ?? '')
            .digest(),
        ),
      ).toBe(false);
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

  it('ofBytes: keyed, of the operation, the Content-Type and every byte; null without bytes', () => {
    const sut = new PayloadFingerprint(keys());
    const text = JSON.stringify(payload);
    const bytes = (raw: string | undefined, contentType = 'application/json') => ({ contentType, raw: raw === undefined ? undefined : Buffer.from(raw) });
    const digest = sut.ofBytes('enrollment', bytes(text));
    expect(digest).toMatch(/^h1:[A-Za-z0-9_-]{43}$/);
    expect(sut.ofBytes('enrollment', bytes(text))).toBe(digest);
    expect(digest).not.toBe(sut.of('enrollment', payload));
    expect(new PayloadFingerprint(keys()).ofBytes('enrollment', bytes(text))).not.toBe(digest);
    for (const other of [
      sut.ofBytes('other', bytes(text)),
      sut.ofBytes('enrollment', bytes(text, 'application/json; charset=utf-8')),
      sut.ofBytes('enrollment', bytes(`${text} `)),
      sut.ofBytes('enrollment', bytes(JSON.stringify(payload, null, 1))),
    ])
      expect(other).not.toBe(digest);
    expect(sut.ofBytes('enrollment', bytes(undefined))).toBeNull();
  });
});
