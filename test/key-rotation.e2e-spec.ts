import { CompactEncrypt, decodeProtectedHeader, importJWK, JWK, CryptoKey } from 'jose';
import { generateKeyMaterial, KeyMaterial, promoteStagedRotation, revokeKey, rotateKeyMaterial, stageRotation } from '../src/infrastructure/crypto/key-store';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';
import { AppProcess, spawnAppProcess } from './support/app-process-runner';

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

/**
 * Several instances share one database (docs/operations.md): during a rolling deploy some run the
 * old key document and some the new one. Each must read what the other wrote, accept the other's
 * tokens and open a partner JWE sealed to either's first `enc` key (CONTRACT section 12). The
 * second instance is a process of its own (passport's strategies are process-wide).
 */
describe('Key rotation across instances, mid-deploy (e2e)', () => {
  let before: KeyMaterial;
  let staged: KeyMaterial;
  let promoted: KeyMaterial;
  let oldSide: TestApp;
  let newSide: AppProcess;

  beforeAll(async () => {
    before = await generateKeyMaterial();
    // Step 1, spread to every instance first; step 2 only once all have step 1 (docs/operations.md).
    staged = await stageRotation(before);
    promoted = promoteStagedRotation(staged);
    oldSide = await startTestApp('key_rotation_rolling', { env: { SERVICE_KEYS: JSON.stringify(staged) } });
    newSide = await spawnAppProcess(oldSide, { SERVICE_KEYS: JSON.stringify(promoted) });
  });

  afterAll(async () => {
    await newSide.stop();
    await oldSide.close();
  });

  it('an account written by either side is read by the other', async () => {
    for (const [writer, reader] of [
      [newSide.client('secure'), oldSide.client('secure')],
      [oldSide.client('secure'), newSide.client('secure')],
    ] as const) {
      const enrolled = await writer.post(ENROLL, EnrollmentRequestFactory.build());
      expect(enrolled.status).toBe(200);
      const id = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
      const read = await reader.get(`${ENROLL}/accounts/${id}`);
      expect({ status: read.status, detail: read.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0 } });
    }
  });

  it("a token issued by either side is accepted by the other, and a JWE sealed to either side's first enc key opens on both", async () => {
    const sides = [
      { url: oldSide.baseUrl, client: oldSide.client('secure') },
      { url: newSide.baseUrl, client: newSide.client('secure') },
    ];
    for (const issuer of sides) {
      const token = await issuer.client.accessToken();
      const firstEnc = (await (await fetch(`${issuer.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      const encJwk = firstEnc.keys.find((key) => key.use === 'enc') as JWK;
      for (const target of sides) {
        const request = EnrollmentRequestFactory.build();
        const res = await fetch(`${target.url}${ENROLL}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...request, encryptedUserData: await sealTo(encJwk, request.encryptedUserData) }),
        });
        const body = (await res.json()) as { responseDetails: Array<{ code: number }> };
        expect({
          from: issuer.url === oldSide.baseUrl ? 'old' : 'new',
          to: target.url === oldSide.baseUrl ? 'old' : 'new',
          status: res.status,
          code: body.responseDetails[0]?.code,
        }).toEqual({
          from: issuer.url === oldSide.baseUrl ? 'old' : 'new',
          to: target.url === oldSide.baseUrl ? 'old' : 'new',
          status: 200,
          code: 0,
        });
      }
    }
  });
});
