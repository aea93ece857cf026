import { createLocalJWKSet, JSONWebKeySet, jwtVerify } from 'jose';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

const ACCOUNT_PATH = '/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000';

async function token(app: TestApp): Promise<string> {
  const basic = Buffer.from(`acme:${PARTNERS.acme.clientSecret}`).toString('base64');
  const response = await fetch(`${app.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function getWith(app: TestApp, bearer: string) {
  const response = await fetch(`${app.baseUrl}${ACCOUNT_PATH}`, { headers: { authorization: `Bearer ${bearer}` } });
  return {
    status: response.status,
    body: (await response.json()) as { responseDetails: Array<{ code: number; subCode: number }> },
    wwwAuthenticate: response.headers.get('www-authenticate'),
  };
}

/** The bearer guard's strategy caches verified tokens until their exp at most (RFC 6750 behaviour unchanged). */
describe('Verified-token cache (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Short enough to wait for its end; long enough that a loaded machine still uses a token twice
    // before it (iat is whole seconds: a token lives TTL - 1 to TTL seconds; 2 s failed under CI's load).
    app = await startTestApp('token_cache', { env: { TOKEN_TTL_SECONDS: '5' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('a cached token is refused once it expires (401/401/0 with WWW-Authenticate)', async () => {
    const bearer = await token(app);
    // Twice: the second call is served from the cache.
    for (let i = 0; i < 2; i++) expect((await getWith(app, bearer)).status).toBe(404);
    const { exp } = JSON.parse(Buffer.from(bearer.split('.')[1] as string, 'base64url').toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    const expired = await getWith(app, bearer);
    expect(expired.status).toBe(401);
    expect(expired.body.responseDetails[0]).toMatchObject({ code: 401, subCode: 0 });
    expect(expired.wwwAuthenticate).toMatch(/^Bearer /);
  });

  it("an enrollment's identical retry, replayed while its cached token lives, is refused once the token expires", async () => {
    const bearer = await token(app);
    const body = JSON.stringify(EnrollmentRequestFactory.build());
    const enroll = () =>
      fetch(`${app.baseUrl}/v1/programs/sandbox/enrollments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body,
      });
    expect((await enroll()).status).toBe(200);
    const replay = await enroll();
    expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed') }).toEqual({ status: 200, replayed: 'true' });
    const { exp } = JSON.parse(Buffer.from(bearer.split('.')[1] as string, 'base64url').toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp * 1000 - Date.now()) + 50));
    const expired = await enroll();
    expect({ status: expired.status, replayed: expired.headers.get('idempotent-replayed') }).toEqual({ status: 401, replayed: null });
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('a token differing in one signature character is refused even while the genuine one is cached', async () => {
    const bearer = await token(app);
    expect((await getWith(app, bearer)).status).toBe(404);
    const last = bearer.at(-2) === 'A' ? 'B' : 'A';
    const forged = `${bearer.slice(0, -2)}${last}${bearer.at(-1)}`;
    expect((await getWith(app, forged)).status).toBe(401);
  });

  it('CONTRACT section 3: a token in the query string is refused (401/401/0, invalid_request), with or without the header', async () => {
    const bearer = await token(app);
    const queryOnly = await fetch(`${app.baseUrl}${ACCOUNT_PATH}?access_token=${bearer}`);
    expect(queryOnly.status).toBe(401);
    expect(((await queryOnly.json()) as { responseDetails: unknown[] }).responseDetails[0]).toMatchObject({ code: 401, subCode: 0 });
    expect(queryOnly.headers.get('www-authenticate')).toMatch(/error="invalid_request"/);
    const both = await fetch(`${app.baseUrl}${ACCOUNT_PATH}?access_token=${bearer}`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(both.status).toBe(401);
  });

  it('tokens asked for at once (signed off the event loop) are each whole, distinct, verified against the JWKS and admitted', async () => {
    const bearers = await Promise.all(Array.from({ length: 40 }, () => token(app)));
    const jwks = createLocalJWKSet((await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet);
    const jtis = new Set<unknown>();
    for (const bearer of bearers) {
      const { payload } = await jwtVerify(bearer, jwks, { algorithms: ['ES256'], typ: 'at+jwt' });
      expect(payload.client_id).toBe('acme');
      jtis.add(payload.jti);
    }
    expect(new Set(bearers).size).toBe(40);
    expect(jtis.size).toBe(40);
    // Admitted by the guard: the account is missing (404), not the caller unauthenticated (401).
    const answers = await Promise.all(bearers.map((bearer) => getWith(app, bearer)));
    expect(answers.map((answer) => answer.status)).toEqual(bearers.map(() => 404));
  });
});
