import { createCipheriv, KeyObject, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { BlindIndex, FieldCipher, UnreadableCiphertextError } from './field-cipher';
import { generateKeyMaterial, KeyStore, KeyStoreError, rotateKeyMaterial } from './key-store';

describe(FieldCipher.name, () => {
  let keys: KeyStore;
  let sut: FieldCipher;

  beforeAll(async () => {
    keys = await KeyStore.from(JSON.stringify(await generateKeyMaterial()), false, '/nonexistent');
    sut = new FieldCipher(keys);
  });

  it('given a row, writes v2 bound to the column and the row: another row or column does not decrypt', () => {
    const value = sut.encrypt('Zyllabe', 'users.last_name', 'row-a');
    expect(value).toMatch(/^v2\./);
    expect(sut.decrypt(value, 'users.last_name', 'row-a')).toBe('Zyllabe');
    expect(() => sut.decrypt(value, 'users.last_name', 'row-b')).toThrow(UnreadableCiphertextError);
    expect(() => sut.decrypt(value, 'users.first_name', 'row-a')).toThrow(UnreadableCiphertextError);
    expect(() => sut.decrypt(value, 'users.last_name')).toThrow(UnreadableCiphertextError);
  });

  it('refuses a value sealed with a truncated GCM tag (the tag length is pinned to 16 bytes)', () => {
    const kid = keys.material.currentDataKeyId;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keys.dataKeys.get(kid) as KeyObject, iv, { authTagLength: 4 });
    cipher.setAAD(Buffer.from('users.last_name'));
    const body = Buffer.concat([cipher.update(''), cipher.final(), cipher.getAuthTag()]);
    const forged = `v1.${kid}.${iv.toString('base64url')}.${body.toString('base64url')}`;
    expect(() => sut.decrypt(forged, 'users.last_name')).toThrow(UnreadableCiphertextError);
  });

  it('reads v1 values (the column only) whatever row it is given', () => {
    const legacy = sut.encrypt('Zyllabe', 'users.last_name');
    expect(legacy).toMatch(/^v1\./);
    expect(sut.decrypt(legacy, 'users.last_name', 'any-row')).toBe('Zyllabe');
    expect(() => sut.decrypt(legacy, 'users.first_name', 'any-row')).toThrow(UnreadableCiphertextError);
  });

  it('gives every value its own IV, across refills of the IV pool', () => {
    // 2,000 values: the pool holds 512 IVs, so this crosses three refills.
    const ivs = Array.from({ length: 2000 }, () => sut.encrypt('Zyllabe', 'users.last_name', 'row-a').split('.')[2]);
    expect(new Set(ivs).size).toBe(ivs.length);
    expect(ivs.every((iv) => Buffer.from(iv ?? '', 'base64url').length === 12)).toBe(true);
  });

  it('an unreadable value says nothing of its content', () => {
    const value = sut.encrypt('Zyllabe', 'users.last_name', 'row-a');
    expect(() => sut.decrypt(value, 'users.last_name', 'row-b')).toThrow(/^Unreadable encrypted value$/);
  });
});

describe(KeyStore.name, () => {
  it('publishes previous keys after the current ones, public halves only, and derives the blind-index key id from the key', async () => {
    const before = await generateKeyMaterial();
    const after = await rotateKeyMaterial(before, { blindIndex: true });
    const keys = await KeyStore.from(JSON.stringify(after), false, '/nonexistent');
    expect(keys.publicJwks().keys.map((key) => key.kid)).toEqual([after.signing.kid, after.encryption.kid, before.signing.kid, before.encryption.kid]);
    expect(keys.publicJwks().keys.every((key) => key.d === undefined)).toBe(true);
    expect(keys.previousBlindIndexKeys).toHaveLength(1);
    expect(keys.blindIndexKeyId).toMatch(/^bik-[0-9a-f]{16}$/);
    const old = await KeyStore.from(JSON.stringify(before), false, '/nonexistent');
    expect(old.blindIndexKeyId).not.toBe(keys.blindIndexKeyId);
    expect(BlindIndex.under(keys.previousBlindIndexKeys[0], 'ssn', '123-45-6789')).toBe(new BlindIndex(old).of('ssn', '123456789'));
  });

  it('refuses a previous enc key without its private half, naming the entry', async () => {
    const material = await rotateKeyMaterial(await generateKeyMaterial());
    const { d: _d, ...publicOnly } = material.previousEncryption?.[0] ?? {};
    await expect(KeyStore.from(JSON.stringify({ ...material, previousEncryption: [publicOnly] }), false, '/nonexistent')).rejects.toThrow(KeyStoreError);
    await expect(KeyStore.from(JSON.stringify({ ...material, previousEncryption: [publicOnly] }), false, '/nonexistent')).rejects.toThrow(
      /previousEncryption\[0\]/,
    );
  });

  it('refuses at start a signing key without its private half (it could not sign a token)', async () => {
    const material = await generateKeyMaterial();
    const { d: _d, ...publicOnly } = material.signing;
    await expect(KeyStore.from(JSON.stringify({ ...material, signing: publicOnly }), false, '/nonexistent')).rejects.toThrow(
      new KeyStoreError('signing is not a private ES256 (P-256) JWK'),
    );
  });

  it('signs a compact ES256 JWS that jose verifies against the published keys, and one changed byte does not', async () => {
    const keys = await KeyStore.from(JSON.stringify(await generateKeyMaterial()), false, '/nonexistent');
    const now = Math.floor(Date.now() / 1000);
    const token = await keys.signJwt('at+jwt', { sub: 'acme', iat: now, exp: now + 60, scope: 'José' });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: keys.signingKeyId });
    const jwks = createLocalJWKSet(keys.publicJwks());
    const { payload } = await jwtVerify(token, jwks, { algorithms: ['ES256'], typ: 'at+jwt' });
    expect(payload).toEqual({ sub: 'acme', iat: now, exp: now + 60, scope: 'José' });
    const [header, body, signature] = token.split('.');
    // One bit of the signature's bytes: a changed last base64url character may only change padding bits (1 in 256 signatures).
    const bytes = Buffer.from(signature, 'base64url');
    bytes[10] = (bytes[10] ?? 0) ^ 0x01;
    const flipped = `${header}.${body}.${bytes.toString('base64url')}`;
    await expect(jwtVerify(flipped, jwks, { algorithms: ['ES256'] })).rejects.toThrow();
  });
});
