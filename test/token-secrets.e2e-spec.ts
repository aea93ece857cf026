import { PARTNERS, ROTATING_PARTNER, startTestApp, TestApp } from './support/test-app';

interface TokenAnswer {
  status: number;
  body: { access_token?: string; error?: string; scope?: string };
  wwwAuthenticate: string | null;
  cacheControl: string | null;
}

async function tokenRequest(app: TestApp, clientId: string, secret: string, method: 'basic' | 'post' = 'basic'): Promise<TokenAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (method === 'basic') headers.authorization = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
  else Object.assign(form, { client_id: clientId, client_secret: secret });
  const response = await fetch(`${app.baseUrl}/oauth2/token`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  return {
    status: response.status,
    body: (await response.json()) as TokenAnswer['body'],
    wwwAuthenticate: response.headers.get('www-authenticate'),
    cacheControl: response.headers.get('cache-control'),
  };
}

function expectInvalidClient(answer: TokenAnswer, challenge: RegExp): void {
  expect(answer.status).toBe(401);
  expect(answer.body.error).toBe('invalid_client');
  expect(answer.body.access_token).toBeUndefined();
  expect(answer.wwwAuthenticate).toMatch(challenge);
  expect(answer.cacheControl).toBe('no-store');
}

/** Client secrets verified with scrypt only on a cache miss (issue 11); RFC 6749 §5.1/§5.2 answers unchanged. */
describe('Client secret verification cache (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('token_secrets');
  });

  afterAll(async () => {
    await app.close();
  });

  it('refuses a wrong secret right after the right one was cached, then accepts the right one again', async () => {
    const { clientId, clientSecret } = PARTNERS.hashed;
    const first = await tokenRequest(app, clientId, clientSecret);
    expect(first.status).toBe(200);
    expect(first.body.scope).toBe('enrollments');
    expectInvalidClient(await tokenRequest(app, clientId, `${clientSecret}x`), /^Basic realm=/);
    // The endpoint's one header scheme is Basic (RFC 6749 section 2.3.1): its challenge whatever the client tried; never Bearer.
    expectInvalidClient(await tokenRequest(app, clientId, 'wrong', 'post'), /^Basic realm=/);
    const again = await tokenRequest(app, clientId, clientSecret);
    expect(again.status).toBe(200);
    expect(typeof again.body.access_token).toBe('string');
  });

  it('answers a JSON body that is not an object as RFC 6749 says (400 invalid_request, no token), not in the API envelope', async () => {
    const response = await fetch(`${app.baseUrl}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' });
    const body = (await response.json()) as { access_token?: string; error?: string; responseDetails?: unknown };
    expect(response.status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(body.access_token).toBeUndefined();
    expect(body.responseDetails).toBeUndefined();
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses an unknown client id like a wrong secret', async () => {
    expectInvalidClient(await tokenRequest(app, 'nobody', PARTNERS.hashed.clientSecret), /^Basic realm=/);
  });

  it('issues tokens for both secrets of a partner that is rotating, and refuses a third', async () => {
    const [oldSecret, newSecret] = ROTATING_PARTNER.clientSecrets;
    for (const secret of [oldSecret, newSecret, oldSecret, newSecret]) {
      const answer = await tokenRequest(app, ROTATING_PARTNER.clientId, secret);
      expect(answer.status).toBe(200);
      expect(typeof answer.body.access_token).toBe('string');
    }
    expectInvalidClient(await tokenRequest(app, ROTATING_PARTNER.clientId, PARTNERS.hashed.clientSecret), /^Basic realm=/);
  });
});
