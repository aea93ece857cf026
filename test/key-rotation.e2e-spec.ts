import { CompactEncrypt, decodeProtectedHeader, importJWK, JWK, CryptoKey } from 'jose';
import { generateKeyMaterial, KeyMaterial, revokeKey, rotateKeyMaterial } from '../src/infrastructure/crypto/key-store';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

async function jwksOf(app: TestApp): Promise<JWK[]> {
  return ((await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] }).keys;
}

async function sealTo(jwk: JWK, data: unknown, kid?: string): Promise<string> {
  const key = (await importJWK(jwk, 'ECDH-ES')) as CryptoKey;
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', ...(kid ? { kid } : {}) })
    .encrypt(key);
}

/**
 * CONTRACT section 12: SERVICE_KEYS may hold previous signing and `enc` keys; all are published in
 * the JWKS, tokens and partner JWEs made with the previous key keep working, the newest signs.
 */
describe('Key rotation (e2e)', () => {
  let before: KeyMaterial;
  let after: KeyMaterial;
  let oldApp: TestApp;
  let app: TestApp;
  let oldToken: string;
  let oldEncJwk: JWK;
  let accountId: string;

  beforeAll(async () => {
    before = await generateKeyMaterial();
    oldApp = await startTestApp('key_rotation', { env: { SERVICE_KEYS: JSON.stringify(before) } });
    const client = oldApp.client('secure');
    oldToken = await client.accessToken();
    oldEncJwk = (await jwksOf(oldApp)).find((key) => key.use === 'enc') as JWK;
    const enrolled = await client.post(ENROLL, EnrollmentRequestFactory.build());
    accountId = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
    await oldApp.close();
    // Rotated after the old key signed the token (keys:rotate records the retirement: CONTRACT section 3).
    after = await rotateKeyMaterial(before);
    // The same database, now served with the rotated key document.
    app = await startTestApp('key_rotation', { schema: oldApp.schema, env: { SERVICE_KEYS: JSON.stringify(after) } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('the JWKS publishes the new signing and enc keys first, then the previous ones (public halves only)', async () => {
    const keys = await jwksOf(app);
    expect(keys.map((key) => [key.kid, key.use])).toEqual([
      [after.signing.kid, 'sig'],
      [after.encryption.kid, 'enc'],
      [before.signing.kid, 'sig'],
      [before.encryption.kid, 'enc'],
    ]);
    for (const key of keys) expect(key.d).toBeUndefined();
  });

  it('a token signed with the previous key still verifies; new tokens are signed with the new key', async () => {
    expect(decodeProtectedHeader(oldToken).kid).toBe(before.signing.kid);
    const got = await fetch(`${app.baseUrl}${ENROLL}/accounts/${accountId}`, { headers: { authorization: `Bearer ${oldToken}` } });
    expect(got.status).toBe(200);
    expect(decodeProtectedHeader(await app.client('secure').accessToken()).kid).toBe(after.signing.kid);
  });

  it('a partner JWE encrypted to the previous enc key decrypts, with or without its kid; to the new key too; to an unknown key it is refused', async () => {
    const newEncJwk = (await jwksOf(app)).find((key) => key.kid === after.encryption.kid) as JWK;
    const cases: Array<[string, Promise<string>]> = [
      ['previous, kid', sealTo(oldEncJwk, EnrollmentRequestFactory.build().encryptedUserData, before.encryption.kid)],
      ['previous, no kid', sealTo(oldEncJwk, EnrollmentRequestFactory.build().encryptedUserData)],
      ['new, no kid', sealTo(newEncJwk, EnrollmentRequestFactory.build().encryptedUserData)],
    ];
    for (const [label, sealed] of cases) {
      const res = await app.client('secure').post(ENROLL, { ...EnrollmentRequestFactory.build(), encryptedUserData: await sealed });
      expect({ label, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ label, status: 200, detail: { code: 0, subCode: 0 } });
    }
    // Its public half: jose encrypts to a public key only.
    const { kty, crv, x, y } = (await generateKeyMaterial()).encryption;
    const stranger = { kty, crv, x, y };
    const refused = await app
      .client('secure')
      .post(ENROLL, { ...EnrollmentRequestFactory.build(), encryptedUserData: await sealTo(stranger, EnrollmentRequestFactory.build().encryptedUserData) });
    expect(refused.status).toBe(400);
  });

  // Last: the instance it starts retires this file's current key, and passport's bearer strategy is
  // registered process-wide, so requests to `app` would be verified by that instance afterwards.
  it('a token signed by a key that is not listed any more is refused (401)', async () => {
    // A second rotation keeps the first key while its tokens may verify (keys:rotate); revoking it lists it no more.
    const rotatedAgain = await rotateKeyMaterial(after);
    expect(rotatedAgain.previousSigning?.map((jwk) => jwk.kid)).toContain(before.signing.kid);
    const unlisted = revokeKey(rotatedAgain, String(before.signing.kid));
    const later = await startTestApp('key_rotation', { schema: app.schema, env: { SERVICE_KEYS: JSON.stringify(unlisted) } });
    try {
      const got = await fetch(`${later.baseUrl}${ENROLL}/accounts/${accountId}`, { headers: { authorization: `Bearer ${oldToken}` } });
      expect(got.status).toBe(401);
    } finally {
      await later.close();
    }
  });
});
