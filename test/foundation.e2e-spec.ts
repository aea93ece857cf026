import { SignJWT, generateKeyPair, decodeJwt, UnsecuredJWT } from 'jose';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp, linked } from './support/test-app';

interface TokenBody {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
  error?: string;
  error_description?: string;
}

async function tokenRequest(app: TestApp, form: Record<string, string>, basic?: { id: string; secret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
  const response = await fetch(`${app.baseUrl}/oauth2/token`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  return { status: response.status, headers: response.headers, body: (await response.json()) as TokenBody };
}

describe('Service foundation (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('foundation');
  });

  afterAll(async () => {
    await app.close();
  });

  it('every answer carries X-Content-Type-Options: nosniff: API, errors, token, documents, health', async () => {
    const token = await app.client().accessToken();
    for (const [path, init] of [
      ['/v1/errors', {}],
      ['/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000', { headers: { authorization: `Bearer ${token}` } }],
      ['/v1/nothing-here', {}],
      ['/oauth2/token', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }],
      ['/openapi.json', {}],
      ['/health/live', {}],
    ] as const) {
      const res = await fetch(`${app.baseUrl}${path}`, init as RequestInit);
      expect({ path, nosniff: res.headers.get('x-content-type-options') }).toEqual({ path, nosniff: 'nosniff' });
      // Over http (this app's PUBLIC_URL) no Strict-Transport-Security: a browser would ignore it, and it promises https.
      expect({ path, hsts: res.headers.get('strict-transport-security') }).toEqual({ path, hsts: null });
    }
  });

  describe('POST /oauth2/token', () => {
    it('issues a token with client_secret_basic', async () => {
      const res = await tokenRequest(app, { grant_type: 'client_credentials' }, { id: 'acme', secret: PARTNERS.acme.clientSecret });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.body.token_type).toBe('Bearer');
      expect(res.body.expires_in).toBeGreaterThan(0);
      expect(res.body.scope?.split(' ').sort()).toEqual(['business_profiles', 'enrollments', 'identity', 'users', 'webhooks']);
      const claims = decodeJwt(res.body.access_token as string);
      expect(claims).toMatchObject({ iss: 'http://enrollment.test', sub: 'acme', client_id: 'acme', aud: 'http://enrollment.test/v1' });
      expect(typeof claims.jti).toBe('string');
    });

    it('issues a token with client_secret_post', async () => {
      const res = await tokenRequest(app, { grant_type: 'client_credentials', client_id: 'acme', client_secret: PARTNERS.acme.clientSecret });
      expect(res.status).toBe(200);
      expect(typeof res.body.access_token).toBe('string');
    });

    it('verifies a hashed (scrypt) client secret', async () => {
      const ok = await tokenRequest(app, { grant_type: 'client_credentials' }, { id: 'hashed', secret: PARTNERS.hashed.clientSecret });
      expect(ok.status).toBe(200);
      const bad = await tokenRequest(app, { grant_type: 'client_credentials' }, { id: 'hashed', secret: 'nope' });
      expect(bad.status).toBe(401);
    });

    it('answers invalid_client (401) for a wrong secret or unknown client', async () => {
      const wrong = await tokenRequest(app, { grant_type: 'client_credentials' }, { id: 'acme', secret: 'wrong' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic /);
      const unknown = await tokenRequest(app, { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' });
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toBe('invalid_client');
    });

    it('answers unsupported_grant_type (400) for another grant', async () => {
      const res = await tokenRequest(app, { grant_type: 'password', username: 'a', password: 'b' }, { id: 'acme', secret: PARTNERS.acme.clientSecret });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('unsupported_grant_type');
    });

    it('narrows scopes and refuses scopes the client lacks', async () => {
      const narrow = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'users' }, { id: 'acme', secret: PARTNERS.acme.clientSecret });
      expect(narrow.status).toBe(200);
      expect(narrow.body.scope).toBe('users');
      const refused = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'users care' }, { id: 'acme', secret: PARTNERS.acme.clientSecret });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_scope');
      expect(refused.body.error_description).toBe('Scope not granted to this client: care');
    });

    it('names only the service’s own scopes in invalid_scope, never other words the request carried', async () => {
      const scope = `users care <img src=x> 123-45-6789 ${'x'.repeat(3000)}`;
      const refused = await tokenRequest(app, { grant_type: 'client_credentials', scope }, { id: 'acme', secret: PARTNERS.acme.clientSecret });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'invalid_scope', error_description: 'Scope not granted to this client: care; other requested scopes are unknown' });
      const unknown = await tokenRequest(
        app,
        { grant_type: 'client_credentials', scope: 'users 123-45-6789' },
        { id: 'acme', secret: PARTNERS.acme.clientSecret },
      );
      expect(unknown.body).toEqual({ error: 'invalid_scope', error_description: 'Requested scopes are unknown' });
    });
  });

  describe('metadata and operations endpoints', () => {
    it('publishes RFC 8414 metadata and the JWKS', async () => {
      const meta = (await (await fetch(`${app.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(meta).toMatchObject({
        issuer: 'http://enrollment.test',
        token_endpoint: 'http://enrollment.test/oauth2/token',
        jwks_uri: 'http://enrollment.test/.well-known/jwks.json',
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
      expect(meta.scopes_supported).toEqual(expect.arrayContaining(['enrollments', 'care']));
      const jwks = (await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as { keys: Array<Record<string, unknown>> };
      expect(jwks.keys.map((k) => k.use).sort()).toEqual(['enc', 'sig']);
      for (const key of jwks.keys) expect(key.d).toBeUndefined();
    });

    it('serves health, metrics and the OpenAPI document', async () => {
      const live = await fetch(`${app.baseUrl}/health/live`);
      expect(live.status).toBe(200);
      const ready = await fetch(`${app.baseUrl}/health/ready`);
      const readyBody = (await ready.json()) as Record<string, unknown>;
      expect(ready.status).toBe(200);
      expect(readyBody).toMatchObject({ status: 'ok', responseDetails: [{ code: 0, subCode: 0, description: 'Success' }] });
      const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
      expect(metrics).toContain('http_requests_total');
      expect(metrics).toContain('http_request_duration_seconds_bucket');
      const openapi = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
      expect(openapi.openapi).toMatch(/^3\./);
      expect(Object.keys(openapi.paths)).toContain('/oauth2/token');
      const docs = await fetch(`${app.baseUrl}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('swagger');
    });
  });

  describe('bearer guard', () => {
    const path = '/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000';

    it('answers 401 code 401 with a challenge when the token is missing', async () => {
      const res = await app.client().get(path, { anonymous: true });
      expect(res.status).toBe(401);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 401, subCode: 0 });
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="enrollment-service"');
      expect(res.headers.get('x-request-id')).toBe(res.body.requestId);
    });

    it('refuses forged, unsigned, expired and wrong-audience tokens', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      const now = Math.floor(Date.now() / 1000);
      const claims = { client_id: 'acme', scope: 'enrollments' };
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
        .setIssuer('http://enrollment.test')
        .setAudience('http://enrollment.test/v1')
        .setSubject('acme')
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .setJti('x')
        .sign(privateKey);
      const unsigned = new UnsecuredJWT(claims)
        .setIssuer('http://enrollment.test')
        .setAudience('http://enrollment.test/v1')
        .setSubject('acme')
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .encode();
      for (const token of [forged, unsigned, 'not-a-jwt']) {
        const res = await app.client().get(path, { anonymous: true, headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(401);
        expect(res.body.responseDetails[0]).toMatchObject({ code: 401, subCode: 0 });
        expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      }
    });

    it('refuses an expired token', async () => {
      const expiring = await startTestApp('foundation-exp', { schema: app.schema, env: { TOKEN_TTL_SECONDS: '1' } });
      try {
        const client = expiring.client('acme');
        const token = await client.accessToken();
        await new Promise((resolve) => setTimeout(resolve, 2100));
        const res = await app.client().get(path, { anonymous: true, headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toContain('invalid_token');
      } finally {
        await expiring.close();
      }
    });

    it('answers 403 subCode 1 when the scope is missing', async () => {
      const res = await app.client('acme', { scope: 'users' }).get(path);
      expect(res.status).toBe(403);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 1 });
      expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    });

    it('answers 403 subCode 2 for a program outside the partner list', async () => {
      const res = await app.client('acme').get('/v1/programs/other/enrollments/accounts/00000000-0000-4000-8000-000000000000');
      expect(res.status).toBe(403);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 2 });
    });
  });

  describe('envelope on every error class', () => {
    it('unknown route: 404 in the envelope', async () => {
      const res = await app.client().get('/v1/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 404, subCode: 0 });
      expect(typeof res.body.requestId).toBe('string');
    });

    it('a request that matches no route: 404/404/0 whatever its body (content type, charset, encoding, malformed, too large)', async () => {
      const json = { 'content-type': 'application/json' };
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
        ['POST', '/.well-known/jwks.json', form, 'a=b'],
        ['POST', '/.well-known/jwks.json', json, '{"a":'],
        ['POST', '/.well-known/oauth-authorization-server', json, '{"a":1}'],
        ['PUT', '/docs/errors', { 'content-type': 'application/json; charset=utf-16' }, '{}'],
        ['POST', '/oauth/token', form, 'grant_type=client_credentials'],
        ['POST', '/v1/nowhere', { ...json, 'content-encoding': 'gzip' }, '{}'],
        ['POST', '/v1/nowhere', json, Buffer.from([0x7b, 0xff, 0x7d]).toString('latin1')],
        ['POST', '/v1/nowhere', json, `{"pad":"${'x'.repeat(70 * 1024)}"}`],
        ['POST', '/v1/nowhere', json, `${'['.repeat(100)}${']'.repeat(100)}`],
        ['POST', '/v1/nowhere', { 'content-type': 'text/plain' }, 'hello'],
        ['DELETE', '/v1/nowhere', {}, undefined],
      ];
      const answers = [];
      for (const [method, path, headers, body] of cases) {
        const res = await fetch(`${app.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : Buffer.from(body, 'latin1') });
        const answer = (await res.json()) as { responseDetails: Array<{ code: number; subCode: number }> };
        answers.push({ method, path, headers, status: res.status, detail: answer.responseDetails[0] });
      }
      expect(answers).toMatchObject(cases.map(([method, path, headers]) => ({ method, path, headers, status: 404, detail: { code: 404, subCode: 0 } })));
      // Under /care the console's own page (HTML, CONTRACT section 14), a form body or not.
      const consolePage = await fetch(`${app.baseUrl}/care/nowhere`, { method: 'POST', headers: form, body: 'a=b' });
      expect({ status: consolePage.status, type: consolePage.headers.get('content-type') }).toEqual({ status: 404, type: 'text/html; charset=utf-8' });
    });

    it('malformed JSON: 400 code 100 subCode 1', async () => {
      const res = await app.client().post('/v1/programs/sandbox/enrollments', undefined, { rawBody: '{"requestId": "x",' });
      expect(res.status).toBe(400);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 1 });
    });

    it('prototype-pollution keys are unknown properties (400/100/2 naming them), and pollute nothing', async () => {
      for (const [rawBody, field] of [
        ['{"__proto__": {"admin": true}}', '__proto__'],
        ['{"requestId": "x", "constructor": {"prototype": {"admin": true}}}', 'constructor'],
        ['{"encryptedUserData": {"addresses": [{"__proto__": {"admin": true}}]}}', 'encryptedUserData.addresses[0].__proto__'],
      ]) {
        const res = await app.client().post('/v1/programs/sandbox/enrollments', undefined, { rawBody });
        expect({ field, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({
          field,
          status: 400,
          detail: { code: 100, subCode: 2, field, description: `property ${field} should not exist` },
        });
      }
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
      // The process answering is unpolluted too: a plain object there has no `admin` either.
      expect((await app.client().get('/health/live')).status).toBe(200);
    });

    it('body over 64 KiB: 413 code 100 subCode 3', async () => {
      const res = await app.client().post('/v1/programs/sandbox/enrollments', { requestId: 'big', pad: 'x'.repeat(70 * 1024) });
      expect(res.status).toBe(413);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 3 });
    });

    it('a body that is not JSON: 415 code 100 subCode 4', async () => {
      const res = await app.client().post('/v1/programs/sandbox/enrollments', undefined, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
      expect(res.status).toBe(415);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 4 });
    });

    it('a JSON body declared in another charset than UTF-8: 415 code 100 subCode 4 (CONTRACT section 1: JSON bodies are UTF-8); charset=utf-8 in any case is JSON', async () => {
      for (const charset of ['utf-16', 'iso-8859-1', '"windows-1252"']) {
        const res = await app.client().post('/v1/webhooks/test', undefined, {
          rawBody: '{"eventType":"transaction"}',
          headers: { 'content-type': `application/json; charset=${charset}` },
        });
        expect({ charset, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ charset, status: 415, detail: { code: 100, subCode: 4 } });
      }
      for (const charset of ['utf-8', 'UTF-8', '"utf-8"', 'us-ascii']) {
        const res = await app.client().post('/v1/webhooks/test', undefined, {
          rawBody: '{"eventType":"transaction"}',
          headers: { 'content-type': `application/json; charset=${charset}` },
        });
        expect({ charset, status: res.status }).toEqual({ charset, status: 200 });
      }
    });

    it('a content-encoded body (gzip, br, anything but identity): 415 code 100 subCode 4, not read as plain JSON (RFC 9110 section 15.5.16)', async () => {
      for (const encoding of ['gzip', 'br', 'x-unknown', 'identity, gzip']) {
        const res = await app.client().post('/v1/webhooks/test', undefined, {
          rawBody: '{"eventType":"transaction"}',
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        });
        expect({ encoding, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({
          encoding,
          status: 415,
          detail: { code: 100, subCode: 4 },
        });
      }
      const identity = await app.client().post('/v1/webhooks/test', undefined, {
        rawBody: '{"eventType":"transaction"}',
        headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      });
      expect(identity.status).toBe(200);
    });

    it('a form body on a /v1 route: 415 code 100 subCode 4, and nothing is written (forms are the token endpoint’s and the console’s only)', async () => {
      const form = 'requestId=form-1&programCode=sandbox&ssn=123456789';
      const enroll = await app.client().post('/v1/programs/sandbox/enrollments', undefined, {
        rawBody: form,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(enroll.status).toBe(415);
      expect(enroll.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 4 });
      const update = await app
        .client()
        .put('/v1/programs/sandbox/accounts/00000000-0000-4000-8000-000000000000/users/00000000-0000-4000-8000-000000000001', undefined, {
          rawBody: 'requestId=form-2&email=a%40b.example',
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        });
      expect(update.status).toBe(415);
      expect(update.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 4 });
      const replay = await app.client().post('/v1/programs/sandbox/enrollments', { requestId: 'form-1' });
      // The requestId was never claimed: a JSON call with it is judged on its own body (here, fields missing).
      expect(replay.status).toBe(400);
      expect(replay.body.responseDetails[0]).toMatchObject({ code: 200, subCode: 0 });
    });

    it('a JSON body that is not an object is refused as a whole', async () => {
      for (const raw of ['[1,2]', '"text"', '42']) {
        const res = await app.client().post('/v1/programs/sandbox/enrollments', undefined, { rawBody: raw });
        expect(res.status).toBe(400);
        expect(res.body.responseDetails).toEqual([linked({ code: 100, subCode: 5, description: 'body has an invalid value or type', field: 'body' })]);
      }
    });

    it('JSON null is not an object either; bytes that are not UTF-8 are malformed JSON (CONTRACT section 1: JSON bodies, UTF-8)', async () => {
      const none = await app.client().post('/v1/programs/sandbox/enrollments', undefined, { rawBody: 'null' });
      expect(none.status).toBe(400);
      expect(none.body.responseDetails).toEqual([linked({ code: 100, subCode: 5, description: 'body has an invalid value or type', field: 'body' })]);
      const latin1 = await fetch(`${app.baseUrl}/v1/programs/sandbox/enrollments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await app.client().accessToken()}`, 'content-type': 'application/json' },
        body: Buffer.concat([Buffer.from('{"requestId":"bad'), Buffer.from([0xff]), Buffer.from('"}')]),
      });
      expect(latin1.status).toBe(400);
      expect(((await latin1.json()) as { responseDetails: unknown[] }).responseDetails[0]).toMatchObject({ code: 100, subCode: 1 });
    });

    it('an array sent as an object, or an object as an array, is one type error at its own path, the governing detail', async () => {
      const request = EnrollmentRequestFactory.build();
      for (const [field, value] of [
        ['addresses', {}],
        ['phoneNumbers', { type: 'mobile' }],
      ] as const) {
        const res = await app
          .client()
          .post('/v1/programs/sandbox/enrollments', { ...request, encryptedUserData: { ...request.encryptedUserData, [field]: value } });
        expect(res.status).toBe(400);
        const details = res.body.responseDetails as Array<{ code: number; subCode: number; field?: string }>;
        expect(details[0]).toMatchObject({ code: 100, subCode: 5, field: `encryptedUserData.${field}` });
        expect(details.filter((d) => d.field?.startsWith(`encryptedUserData.${field}.`))).toEqual([]);
      }
    });

    it('a path identifier of any length is an identifier: an unknown account of 128 characters is Account Not Found', async () => {
      const res = await app.client().get(`/v1/programs/sandbox/enrollments/accounts/${'x'.repeat(128)}`);
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0, description: 'Account Not Found' });
    });

    it('a call that takes no body refuses properties it does not know (100/2) and a body that is not an object (100/5)', async () => {
      const redeliver = `/v1/webhooks/events/00000000-0000-4000-8000-000000000000/redeliver`;
      const unknown = await app.client().post(redeliver, { foo: 1 });
      expect(unknown.status).toBe(400);
      expect(unknown.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 2, field: 'foo' });
      const array = await app.client().post(redeliver, undefined, { rawBody: '[1]' });
      expect(array.status).toBe(400);
      expect(array.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 5, field: 'body' });
      // Still answered as before without a body, or with an empty object.
      expect((await app.client().post(redeliver, {})).status).toBe(404);
      const reset = await app.client().delete('/v1/sandbox/programs/sandbox/data', { foo: 1 });
      expect(reset.status).toBe(400);
      expect(reset.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 2, field: 'foo' });
      // A name Object.prototype carries is as unknown as any other (the reset did run with it).
      const named = await app.client().delete('/v1/sandbox/programs/sandbox/data', { valueOf: 1 });
      expect(named.status).toBe(400);
      expect(named.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 2, field: 'valueOf' });
    });

    it('never leaks a stack trace or SQL', async () => {
      const res = await app.client().post('/v1/programs/sandbox/enrollments', undefined, { rawBody: '{"a":' });
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(js|ts):\d+|select |insert /i);
    });
  });

  it('two app instances against one database accept the same token', async () => {
    const second = await startTestApp('foundation-2', { schema: app.schema });
    try {
      const token = await app.client('acme').accessToken();
      for (const instance of [app, second]) {
        const res = await fetch(`${instance.baseUrl}/v1/programs/other/enrollments/accounts/x`, { headers: { authorization: `Bearer ${token}` } });
        // 403 subCode 2 proves the token was accepted (authentication passed, tenancy refused).
        expect(res.status).toBe(403);
        const body = (await res.json()) as { responseDetails: Array<{ code: number; subCode: number }> };
        expect(body.responseDetails[0]).toMatchObject({ code: 403, subCode: 2 });
      }
    } finally {
      await second.close();
    }
  });
});
