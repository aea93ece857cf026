import { spawnSync } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, JWK, JWTPayload, CryptoKey, SignJWT } from 'jose';
import { generateKeyMaterial, KeyMaterial, revokeKey, rotateKeyMaterial } from '../src/infrastructure/crypto/key-store';
import { startTestApp, TEST_PUBLIC_URL, TestApp } from './support/test-app';

const ACCOUNT_PATH = '/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000';
const HOUR = 3600;
const now = () => Math.floor(Date.now() / 1000);

/** A token as the service mints it (RFC 9068 claims for `acme`), signed with `jwk`, with the times given. */
async function mint(
  jwk: JWK,
  times: { iat: number; exp: number },
  extra: { typ?: string; claims?: JWTPayload; iss?: string; aud?: string } = {},
): Promise<string> {
  const key = (await importJWK(jwk, 'ES256')) as CryptoKey;
  return new SignJWT({ client_id: 'acme', scope: 'enrollments', sub: 'acme', jti: `jti-${Math.random()}`, ...(extra.claims ?? {}) })
    .setProtectedHeader({ alg: 'ES256', typ: extra.typ ?? 'at+jwt', kid: jwk.kid })
    .setIssuer(extra.iss ?? TEST_PUBLIC_URL)
    .setAudience(extra.aud ?? `${TEST_PUBLIC_URL}/v1`)
    .setIssuedAt(times.iat)
    .setExpirationTime(times.exp)
    .sign(key);
}

/** 404 (an unknown account) means the token was admitted; 401 that it was refused. */
async function statusWith(app: TestApp, token: string): Promise<number> {
  return (await fetch(`${app.baseUrl}${ACCOUNT_PATH}`, { headers: { authorization: `Bearer ${token}` } })).status;
}

/** CONTRACT section 3 (2026-11-25): tokens age out by iat, and retired signing keys stop verifying. */
describe('Token lifetimes and key retirement (e2e)', () => {
  let before: KeyMaterial;
  let stale: KeyMaterial;
  let unrecorded: KeyMaterial;
  let current: KeyMaterial;
  let app: TestApp;

  beforeAll(async () => {
    [before, stale, unrecorded] = await Promise.all([generateKeyMaterial(), generateKeyMaterial(), generateKeyMaterial()]);
    current = await rotateKeyMaterial(before);
    const t = now();
    current.previousSigning = [
      { ...(current.previousSigning ?? [])[0], retiredAt: t - 100 },
      // Retired long enough ago that its window (TOKEN_TTL_SECONDS) has closed.
      { kty: 'EC', crv: 'P-256', x: stale.signing.x, y: stale.signing.y, kid: stale.signing.kid, retiredAt: t - HOUR - 40 },
      // No retirement recorded: counts as retired when the service starts.
      { kty: 'EC', crv: 'P-256', x: unrecorded.signing.x, y: unrecorded.signing.y, kid: unrecorded.signing.kid },
    ];
    app = await startTestApp('token_lifetime', { env: { SERVICE_KEYS: JSON.stringify(current) } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('keys:rotate records when the previous signing key retired, and keeps its shape (the private d)', async () => {
    const rotated = await rotateKeyMaterial(before);
    const retiredAt = rotated.previousSigning?.[0].retiredAt as number;
    expect(rotated.previousSigning?.[0]).toMatchObject({ kid: before.signing.kid, kty: 'EC', crv: 'P-256', d: before.signing.d });
    expect(retiredAt).toBeGreaterThanOrEqual(now() - 5);
    expect(retiredAt).toBeLessThanOrEqual(now());
  });

  it('a second keys:rotate keeps every previous signing key whose tokens may still verify, and drops the others', async () => {
    const once = await rotateKeyMaterial(before);
    const t = now();
    const withOld: KeyMaterial = {
      ...once,
      previousSigning: [...(once.previousSigning ?? []), { ...stale.signing, retiredAt: t - HOUR - 61 }, { ...unrecorded.signing, retiredAt: undefined }],
    };
    const twice = await rotateKeyMaterial(withOld, { tokenTtlSeconds: HOUR });
    expect(twice.previousSigning?.map((jwk) => jwk.kid)).toEqual([once.signing.kid, before.signing.kid]);
  });

  it('a token whose iat is older than TOKEN_TTL_SECONDS + 60 s is refused whatever its exp; a younger one is admitted', async () => {
    const t = now();
    expect(await statusWith(app, await mint(current.signing, { iat: t - HOUR - 61, exp: t + 10 * 365 * 24 * HOUR }))).toBe(401);
    expect(await statusWith(app, await mint(current.signing, { iat: t - HOUR + 30, exp: t + 30 }))).toBe(404);
  });

  it('a token issued in the future (iat beyond 60 s of clock skew) is refused: it would otherwise live past TOKEN_TTL_SECONDS', async () => {
    const t = now();
    expect(await statusWith(app, await mint(current.signing, { iat: t + 3000, exp: t + 10 * HOUR }))).toBe(401);
    expect(await statusWith(app, await mint(current.signing, { iat: t + 30, exp: t + HOUR }))).toBe(404);
  });

  it('a previous key verifies tokens it signed before its retirement, and refuses those signed after', async () => {
    const t = now();
    expect(await statusWith(app, await mint(before.signing, { iat: t - 200, exp: t + HOUR - 200 }))).toBe(404);
    expect(await statusWith(app, await mint(before.signing, { iat: t - 50, exp: t + HOUR - 50 }))).toBe(401);
  });

  it('a previous key verifies nothing TOKEN_TTL_SECONDS after its retirement', async () => {
    const t = now();
    // Issued before that key retired and young enough by iat: refused only because the window closed.
    expect(await statusWith(app, await mint(stale.signing, { iat: t - HOUR - 50, exp: t + HOUR }))).toBe(401);
  });

  it('a previous key without retiredAt counts as retired when the service started', async () => {
    const t = now();
    expect(await statusWith(app, await mint(unrecorded.signing, { iat: t - 10, exp: t + HOUR }))).toBe(404);
    expect(await statusWith(app, await mint(unrecorded.signing, { iat: t + 2, exp: t + HOUR }))).toBe(401);
  });

  it('keys:rotate --revoke <kid> prints SERVICE_KEYS without that key; served, its tokens are refused and it leaves the JWKS', async () => {
    const root = path.resolve(__dirname, '..');
    const run = spawnSync(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', path.join(root, 'src', 'keys-rotate.ts'), '--revoke', before.signing.kid as string],
      {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: path.join(root, 'tsconfig.spec.json'), SERVICE_KEYS: JSON.stringify(current) },
        encoding: 'utf8',
      },
    );
    expect(run.status).toBe(0);
    const revoked = JSON.parse(run.stdout) as KeyMaterial;
    expect(revoked).toEqual(revokeKey(current, before.signing.kid as string));
    expect(revoked.previousSigning?.map((jwk) => jwk.kid)).not.toContain(before.signing.kid);
    expect(revoked.signing).toEqual(current.signing);
    const served = await startTestApp('token_revoked', { schema: app.schema, env: { SERVICE_KEYS: run.stdout.trim() } });
    try {
      const t = now();
      expect(await statusWith(served, await mint(before.signing, { iat: t - 200, exp: t + HOUR - 200 }))).toBe(401);
      const jwks = (await (await fetch(`${served.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
      expect(jwks.keys.map((key) => key.kid)).not.toContain(before.signing.kid);
    } finally {
      await served.close();
    }
  });
});

describe('Verified-token cache and a retired key (e2e)', () => {
  it('a token admitted and cached is refused once its retired key is TOKEN_TTL_SECONDS past retirement', async () => {
    const before = await generateKeyMaterial();
    const current = await rotateKeyMaterial(before);
    const t = now();
    // The key verifies until t + 11: room for the app to start on a busy machine before the two calls.
    (current.previousSigning ?? [])[0].retiredAt = t - 1;
    const app = await startTestApp('token_lifetime_cache', { env: { SERVICE_KEYS: JSON.stringify(current), TOKEN_TTL_SECONDS: '12' } });
    try {
      const token = await mint(before.signing, { iat: t - 5, exp: t + HOUR });
      expect(await statusWith(app, token)).toBe(404);
      expect(await statusWith(app, token)).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, (t + 11) * 1000 - Date.now()) + 100));
      expect(await statusWith(app, token)).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('External issuer (e2e): audience required, client_id required, typ at+jwt', () => {
  let app: TestApp;
  let jwks: Server;
  let signing: JWK;
  const ISSUER = 'https://issuer.example';
  const AUDIENCE = 'enrollment-api';

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    signing = { ...(await exportJWK(pair.privateKey)), kid: 'ext-1' };
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'ext-1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
    app = await startTestApp('token_external', { env: { OAUTH_ISSUER: ISSUER, OAUTH_AUDIENCE: AUDIENCE, OAUTH_JWKS_URI: jwksUri } });
  });

  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => jwks.close(resolve));
  });

  it('admits an at+jwt with client_id; refuses one naming the partner only in sub, one of typ JWT, and an aged one', async () => {
    const t = now();
    const times = { iat: t - 10, exp: t + HOUR };
    const external = (extra: { typ?: string; claims?: JWTPayload } = {}, at = times) => mint(signing, at, { iss: ISSUER, aud: AUDIENCE, ...extra });
    expect(await statusWith(app, await external())).toBe(404);
    expect(await statusWith(app, await external({ claims: { client_id: undefined, sub: 'acme' } }))).toBe(401);
    expect(await statusWith(app, await external({ typ: 'JWT' }))).toBe(401);
    expect(await statusWith(app, await external({}, { iat: t - HOUR - 61, exp: t + HOUR }))).toBe(401);
    expect(await statusWith(app, await external({}, { iat: t + 3000, exp: t + 10 * HOUR }))).toBe(401);
  });
});
