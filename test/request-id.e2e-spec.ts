import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

const ACCOUNT_PATH = '/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Answer {
  status: number;
  requestId: string | undefined;
  header: string | null;
  cacheControl: string | null;
}

/**
 * CONTRACT section 1 (2026-11-25): one id per request, the body's requestId, else a well-formed
 * X-Request-Id, else a generated one: the envelope's requestId, the response header and the logs'
 * request id. Every /v1 answer carries Cache-Control: no-store.
 */
describe('Request id and Cache-Control (e2e)', () => {
  let app: TestApp;
  let bearer: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    app = await startTestApp('request_id', { env: { LOG_LEVEL: 'info', JOBS_ENABLED: 'false' }, logLines });
    const basic = Buffer.from(`${PARTNERS.acme.clientId}:${PARTNERS.acme.clientSecret}`).toString('base64');
    const token = await fetch(`${app.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    bearer = ((await token.json()) as { access_token: string }).access_token;
  });

  afterAll(async () => {
    await app?.close();
  });

  async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string; auth?: boolean } = {}): Promise<Answer> {
    const headers = { ...(init.auth === false ? {} : { authorization: `Bearer ${bearer}` }), ...(init.headers ?? {}) };
    const response = await fetch(`${app.baseUrl}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
    const text = await response.text();
    const body = text.startsWith('{') ? (JSON.parse(text) as { requestId?: string }) : {};
    return {
      status: response.status,
      requestId: body.requestId,
      header: response.headers.get('x-request-id'),
      cacheControl: response.headers.get('cache-control'),
    };
  }

  /** The request lines logged for a request id (the onResponse line of each answered request). */
  const loggedWith = (requestId: string) => logLines.filter((line) => (JSON.parse(line) as { requestId?: string }).requestId === requestId);

  it('answers a well-formed X-Request-Id in the envelope and the header, and logs the request under it', async () => {
    const answer = await send(ACCOUNT_PATH, { headers: { 'x-request-id': 'partner-corr-123' } });
    expect(answer).toEqual({ status: 404, requestId: 'partner-corr-123', header: 'partner-corr-123', cacheControl: 'no-store' });
    const withColons = await send(ACCOUNT_PATH, { headers: { 'x-request-id': 'a.B_9:z-1' } });
    expect({ requestId: withColons.requestId, header: withColons.header }).toEqual({ requestId: 'a.B_9:z-1', header: 'a.B_9:z-1' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(loggedWith('partner-corr-123').length).toBeGreaterThan(0);
  });

  it.each([
    ['129 characters', 'a'.repeat(129)],
    ['a space', 'partner corr'],
    ['a character outside A-Za-z0-9._:-', 'partner/corr'],
  ])('replaces an X-Request-Id of %s by a generated id, never an error', async (_case, sent) => {
    const answer = await send(ACCOUNT_PATH, { headers: { 'x-request-id': sent } });
    expect(answer.status).toBe(404);
    expect(answer.requestId).toMatch(UUID);
    expect(answer.header).toBe(answer.requestId);
  });

  it('accepts 128 characters', async () => {
    const sent = 'b'.repeat(128);
    expect(await send(ACCOUNT_PATH, { headers: { 'x-request-id': sent } })).toMatchObject({ requestId: sent, header: sent });
  });

  it("takes the body's requestId over the header, in the envelope, the header and the logs", async () => {
    const request = EnrollmentRequestFactory.build();
    const answer = await send('/v1/programs/sandbox/enrollments?validateOnly=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'header-id-1' },
      body: JSON.stringify(request),
    });
    expect(answer).toEqual({ status: 200, requestId: request.requestId, header: request.requestId, cacheControl: 'no-store' });
    // A refusal after the body is read carries the body's requestId too.
    const invalid = await send('/v1/programs/sandbox/enrollments', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'header-id-2' },
      body: JSON.stringify({ ...request, requestId: 'body-id-2', accountType: 'nonsense' }),
    });
    expect(invalid).toEqual({ status: 400, requestId: 'body-id-2', header: 'body-id-2', cacheControl: 'no-store' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(loggedWith(request.requestId).length).toBeGreaterThan(0);
    expect(loggedWith('header-id-1')).toEqual([]);
  });

  it('generates one id when there is neither, the same in the envelope and the header', async () => {
    const answer = await send(ACCOUNT_PATH);
    expect(answer.requestId).toMatch(UUID);
    expect(answer.header).toBe(answer.requestId);
  });

  it.each<[string, string, { method?: string; headers?: Record<string, string>; body?: string; auth?: boolean }, number]>([
    ['a success', '/v1/errors', { auth: false }, 200],
    ['a refusal of the guard', ACCOUNT_PATH, { auth: false }, 401],
    ['an unknown route under /v1', '/v1/no-such-route', {}, 404],
    ['an undecodable URL under /v1', '/v1/programs/%E0%A4%A/enrollments/accounts/x', {}, 404],
    ['malformed JSON', '/v1/programs/sandbox/enrollments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"requestId":' }, 400],
  ])('sends Cache-Control: no-store and the header id on %s', async (_case, path, init, status) => {
    const answer = await send(path, { ...init, headers: { ...(init.headers ?? {}), 'x-request-id': 'partner-corr-456' } });
    expect(answer).toEqual({ status, requestId: 'partner-corr-456', header: 'partner-corr-456', cacheControl: 'no-store' });
  });
});
