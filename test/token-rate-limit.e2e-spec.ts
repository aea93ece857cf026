import { PARTNERS, startTestApp, TestApp } from './support/test-app';
import { expectTooManyTokenRequests, tokenRequest, tokenRequestFrom } from './support/token-requests';

/** CONTRACT section 12: POST /oauth2/token is rate limited per client id and per source address. */
describe('Token rate limits (e2e, sandbox)', () => {
  let app: TestApp;

  beforeAll(async () => {
    // Set low on purpose (CONTRACT section 15): 3 a minute per client id, 30 per address.
    app = await startTestApp('token_rate_limit', { env: { TOKEN_RATE_LIMIT: '3' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('TOKEN_RATE_LIMIT requests a minute per client id, then 429/429/0 with Retry-After; every answer carries RateLimit-Policy and RateLimit', async () => {
    const { clientId, clientSecret } = PARTNERS.acme;
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await tokenRequest(app.baseUrl, clientId, clientSecret, i === 1 ? 'post' : 'basic');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe('"client";q=3;w=60, "client-address";q=3;w=60, "address";q=30;w=60');
      remaining.push(answer.headers.get('ratelimit') ?? '');
    }
    expect(remaining.map((value) => /^"client";r=(\d+);t=(\d+)$/.exec(value)?.[1])).toEqual(['2', '1', '0']);
    // The fourth, by either authentication method, and even with a wrong secret (no scrypt is run).
    expectTooManyTokenRequests(await tokenRequest(app.baseUrl, clientId, clientSecret));
    expectTooManyTokenRequests(await tokenRequest(app.baseUrl, clientId, clientSecret, 'post'));
    expectTooManyTokenRequests(await tokenRequest(app.baseUrl, clientId, 'wrong'));
    // Another client id is counted apart.
    expect((await tokenRequest(app.baseUrl, PARTNERS.globex.clientId, PARTNERS.globex.clientSecret)).status).toBe(200);
  });

  it('failed authentications count per (client id, address), and answer 401 with the headers while under the limit', async () => {
    const answer = await tokenRequest(app.baseUrl, PARTNERS.secure.clientId, 'wrong');
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('invalid_client');
    expect(answer.headers.get('ratelimit')).toBe('"client-address";r=2;t=60');
  });

  it('ten times TOKEN_RATE_LIMIT per source address, whatever client ids it names (guessing ids does not escape the limit)', async () => {
    // 8 requests so far from this address (429s count); 22 more distinct ids take it to 30.
    for (let i = 0; i < 22; i++) {
      const answer = await tokenRequest(app.baseUrl, `guess-${i}`, 'x');
      expect(answer.status).toBe(401);
    }
    const over = await tokenRequest(app.baseUrl, PARTNERS.care.clientId, PARTNERS.care.clientSecret);
    expectTooManyTokenRequests(over);
    expect(over.headers.get('ratelimit')).toMatch(/^"address";r=0;t=\d+$/);
    // Other routes are not rate limited.
    const jwks = await fetch(`${app.baseUrl}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('ratelimit')).toBeNull();
  });

  it('requests refused as malformed count toward their address too, and beyond its limit even they are 429', async () => {
    const json = { contentType: 'application/json', body: '{"grant_type":"client_credentials"}' };
    const { clientId, clientSecret } = PARTNERS.acme;
    for (let i = 0; i < 30; i++) {
      const answer = await tokenRequestFrom(app.baseUrl, '127.0.0.4', clientId, clientSecret, undefined, json);
      expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 400, error: 'invalid_request' });
      expect(answer.headers.get('ratelimit')).toMatch(new RegExp(`^"address";r=${29 - i};t=\\d+$`));
    }
    expectTooManyTokenRequests(await tokenRequestFrom(app.baseUrl, '127.0.0.4', clientId, clientSecret, undefined, json));
    expectTooManyTokenRequests(await tokenRequestFrom(app.baseUrl, '127.0.0.4', PARTNERS.globex.clientId, PARTNERS.globex.clientSecret));
  });

  it('/openapi.json documents the limit: a 429 answer on POST /oauth2/token with its headers', async () => {
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, { post?: { description?: string; responses: Record<string, { description: string; headers?: Record<string, unknown> }> } }>;
    };
    const operation = document.paths['/oauth2/token'].post;
    // The limit as a partner sees it, not the setting's name (docs/partner-api.md: descriptions speak to a partner).
    expect(operation?.description).toContain('default 60');
    expect(operation?.description).not.toContain('TOKEN_RATE_LIMIT');
    expect(operation?.responses['429'].description).toMatch(/code 429, subCode 0/);
    expect(Object.keys(operation?.responses['429'].headers ?? {})).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']));
  });
});

/** CONTRACT sections 3 and 12 (2026-11-25): nobody but a client itself can exhaust its limit. */
describe('Token rate limits: failures per (client id, address), successes per client id (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('token_lockout', { env: { TOKEN_RATE_LIMIT: '60' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('60+ wrong secrets for acme from 127.0.0.2 do not lock acme out: its real secret from 127.0.0.1 still gets a token', async () => {
    const { clientId, clientSecret } = PARTNERS.acme;
    for (let i = 0; i < 60; i++) expect((await tokenRequestFrom(app.baseUrl, '127.0.0.2', clientId, `wrong-${i}`)).status).toBe(401);
    // The guesser itself is now refused, even with the right secret, from its address.
    expectTooManyTokenRequests(await tokenRequestFrom(app.baseUrl, '127.0.0.2', clientId, 'wrong-61'));
    const owner = await tokenRequestFrom(app.baseUrl, '127.0.0.1', clientId, clientSecret);
    expect(owner.status).toBe(200);
    expect(owner.body.access_token).toEqual(expect.any(String));
  });

  it('X-Forwarded-For is ignored without TRUST_PROXY: the socket is the source', async () => {
    const { clientId } = PARTNERS.globex;
    for (let i = 0; i < 60; i++) expect((await tokenRequestFrom(app.baseUrl, '127.0.0.3', clientId, 'wrong', `198.51.100.${i}`)).status).toBe(401);
    expectTooManyTokenRequests(await tokenRequestFrom(app.baseUrl, '127.0.0.3', clientId, 'wrong', '198.51.100.200'));
  });
});

describe('Token rate limits behind a proxy (TRUST_PROXY, e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('token_trust_proxy', { env: { TOKEN_RATE_LIMIT: '2', TRUST_PROXY: 'true' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('the forwarded address is the source; IPv6 sources are grouped by /64, IPv4-mapped ones by their IPv4 address', async () => {
    const { clientId, clientSecret } = PARTNERS.acme;
    const from = (forwarded: string, secret = 'wrong') => tokenRequestFrom(app.baseUrl, '127.0.0.1', clientId, secret, forwarded);
    expect((await from('2001:db8:1:2::1')).status).toBe(401);
    expect((await from('2001:db8:1:2:ffff::9')).status).toBe(401);
    // The same /64, another address in it: over the limit.
    expectTooManyTokenRequests(await from('2001:db8:1:2::abcd'));
    // Another /64 and another IPv4 address are other sources.
    expect((await from('2001:db8:1:3::1')).status).toBe(401);
    expect((await from('203.0.113.7')).status).toBe(401);
    expect((await from('::ffff:203.0.113.7')).status).toBe(401);
    expectTooManyTokenRequests(await from('203.0.113.7'));
    expect((await from('203.0.113.8', clientSecret)).status).toBe(200);
  });
});
