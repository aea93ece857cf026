import { PARTNERS, startTestApp, TestApp } from './support/test-app';
import { tokenRequest } from './support/token-requests';

interface Raw {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** CONTRACT section 3 (2026-11-25): the token endpoint takes one strict form, and no answer of it is cached. */
describe('Token endpoint request checks (e2e)', () => {
  let app: TestApp;
  const { clientId, clientSecret } = PARTNERS.acme;

  async function post(contentType: string | undefined, body: string, headers: Record<string, string> = {}): Promise<Raw> {
    const response = await fetch(`${app.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
  }

  function expectInvalidRequest(answer: Raw): void {
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_request');
    expect(answer.body.access_token).toBeUndefined();
    expect(answer.body.responseDetails).toBeUndefined();
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    // CONTRACT section 12: every answer of a rate-limited route, a refusal before the limiter included.
    expect(answer.headers.get('ratelimit-policy')).toMatch(/^"client";q=3;w=60, /);
    expect(answer.headers.get('ratelimit')).toMatch(/^"[a-z-]+";r=\d+;t=\d+$/);
  }

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  beforeAll(async () => {
    app = await startTestApp('token_endpoint', { env: { TOKEN_RATE_LIMIT: '3' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('a JSON body, even with the right secret, is invalid_request; a JSON array client_id neither authenticates nor escapes the per-client limit', async () => {
    expectInvalidRequest(
      await post('application/json', JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })),
    );
    const arrayBody = JSON.stringify({ grant_type: 'client_credentials', client_id: [clientId], client_secret: clientSecret });
    expectInvalidRequest(await post('application/json', arrayBody));
    for (let i = 0; i < 5; i++) {
      expectInvalidRequest(
        await post('application/json', JSON.stringify({ grant_type: 'client_credentials', client_id: [clientId], client_secret: `wrong-${i}` })),
      );
    }
    expectInvalidRequest(await post('application/json', '{"grant_type":'));
  });

  it('any other media type, or none, is invalid_request; a charset parameter of UTF-8 is fine', async () => {
    const body = form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    expectInvalidRequest(await post('text/plain', body));
    expectInvalidRequest(await post('multipart/form-data; boundary=x', body));
    expectInvalidRequest(await post('application/x-www-form-urlencoded; charset=ISO-8859-1', body));
    const withCharset = await post('application/x-www-form-urlencoded;charset=UTF-8', body);
    expect(withCharset.status).toBe(200);
    expect(typeof withCharset.body.access_token).toBe('string');
    expect(withCharset.headers.get('cache-control')).toBe('no-store');
  });

  it('a content-encoded form is invalid_request, never read as plain text', async () => {
    const body = form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    expectInvalidRequest(await post('application/x-www-form-urlencoded', body, { 'content-encoding': 'gzip' }));
    expect((await post('application/x-www-form-urlencoded', body, { 'content-encoding': 'identity' })).status).toBe(200);
  });

  it('a parameter given twice, or a form that cannot be parsed, is invalid_request', async () => {
    const type = 'application/x-www-form-urlencoded';
    expectInvalidRequest(await post(type, `grant_type=client_credentials&client_id=${clientId}&client_id=${clientId}&client_secret=${clientSecret}`));
    expectInvalidRequest(await post(type, `grant_type=client_credentials&grant_type=client_credentials`, { authorization: basic(clientId, clientSecret) }));
    expectInvalidRequest(await post(type, `grant_type=client_credentials&client_id=${clientId}&client_secret=%zz`));
    expectInvalidRequest(await post(type, `grant_type=client_credentials&client_id=%E0%A4%A&client_secret=x`));
  });

  it('a form over 64 KiB is invalid_request too (the RFC 6749 form, like every error of this endpoint but 429 and 503)', async () => {
    const padding = 'x'.repeat(70 * 1024);
    expectInvalidRequest(await post('application/x-www-form-urlencoded', form({ grant_type: 'client_credentials', client_id: clientId, pad: padding })));
  });

  it('a chunked form (no Content-Length) that grows past 64 KiB is invalid_request too, not the envelope 413', async () => {
    const chunk = new TextEncoder().encode(`grant_type=client_credentials&pad=${'x'.repeat(20 * 1024)}`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const response = await fetch(`${app.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      duplex: 'half',
    } as RequestInit);
    expectInvalidRequest({ status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers });
  });

  it('a client_id over 128 characters is invalid_request, in the form or in Basic; 128 is an unknown client', async () => {
    const type = 'application/x-www-form-urlencoded';
    const long = 'a'.repeat(129);
    expectInvalidRequest(await post(type, form({ grant_type: 'client_credentials', client_id: long, client_secret: 'x' })));
    expectInvalidRequest(await post(type, form({ grant_type: 'client_credentials' }), { authorization: basic(long, 'x') }));
    const unknown = await post(type, form({ grant_type: 'client_credentials', client_id: 'a'.repeat(128), client_secret: 'x' }));
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });

  it('Basic with a form client_id naming another client is invalid_request, no token for either (RFC 6749 section 2.3: one method)', async () => {
    const type = 'application/x-www-form-urlencoded';
    const answer = await post(type, form({ grant_type: 'client_credentials', client_id: 'issuer-care' }), { authorization: basic(clientId, clientSecret) });
    expectInvalidRequest(answer);
    expect(answer.body.error_description).toBe('client_id names another client than the Basic header');
  });

  it('a malformed Basic header or no authentication at all: invalid_client challenged with Basic, never Bearer', async () => {
    const type = 'application/x-www-form-urlencoded';
    for (const headers of [{ authorization: 'Basic !!!' }, {}] as Array<Record<string, string>>) {
      const answer = await post(type, form({ grant_type: 'client_credentials' }), headers);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
      expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    }
  });

  it('another method on the token path is answered 404 with no-store too (CONTRACT section 1: every token answer)', async () => {
    for (const method of ['GET', 'PUT']) {
      const response = await fetch(`${app.baseUrl}/oauth2/token`, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('every answer carries Cache-Control: no-store, the 429 included', async () => {
    const { clientId: id, clientSecret: secret } = PARTNERS.globex;
    for (let i = 0; i < 3; i++) expect((await tokenRequest(app.baseUrl, id, secret)).headers.get('cache-control')).toBe('no-store');
    const over = await tokenRequest(app.baseUrl, id, secret);
    expect(over.status).toBe(429);
    expect(over.headers.get('cache-control')).toBe('no-store');
  });
});

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}
