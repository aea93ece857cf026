import { EnrollmentClient } from './enrollment-client';
import { retryDelay, SERVICE_RETRY_RANGES, shouldRetry } from './retry-policy';

describe('retry policy', () => {
  it('draws each wait from the API retry policy ranges', () => {
    const policy = { ranges: SERVICE_RETRY_RANGES, sleep: async () => undefined, random: () => 0 };
    expect([0, 1, 2].map((i) => retryDelay(policy, i))).toEqual([1, 1000, 5000]);
    const high = { ...policy, random: () => 0.999999999 };
    expect([0, 1, 2].map((i) => retryDelay(high, i))).toEqual([1000, 5000, 30000]);
  });

  it('retries only on 503', () => {
    expect(shouldRetry(503)).toBe(true);
    for (const status of [200, 400, 401, 409, 413, 422, 500, 502]) expect(shouldRetry(status)).toBe(false);
  });
});

describe(EnrollmentClient.name, () => {
  const realFetch = global.fetch;
  let statuses: number[];
  let calls: Array<{ url: string; body?: string }>;
  let waits: number[];

  beforeEach(() => {
    calls = [];
    waits = [];
    global.fetch = jest.fn(async (url: string | URL | Request, init?: RequestInit) => {
      const href = String(url);
      if (href.endsWith('/oauth2/token')) {
        return new Response(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }), { status: 200 });
      }
      calls.push({ url: href, body: init?.body as string | undefined });
      const status = statuses.shift() ?? 200;
      return new Response(JSON.stringify({ requestId: 'r', responseDetails: [{ code: status === 200 ? 0 : status, subCode: 0, description: '' }] }), {
        status,
      });
    }) as typeof fetch;
  });

  afterEach(() => {
    global.fetch = realFetch;
  });

  const sut = () =>
    new EnrollmentClient({
      baseUrl: 'http://x',
      clientId: 'c',
      clientSecret: 's',
      retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5 },
    });

  it('resends the identical request on 503, at most 3 times, with growing waits', async () => {
    statuses = [503, 503, 503, 503];
    const res = await sut().post('/v1/x', { requestId: 'a', n: 1 });
    expect(res.status).toBe(503);
    expect(res.retries).toBe(3);
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((c) => c.body)).size).toBe(1);
    expect(waits).toEqual([501, 3000, 17500]);
  });

  it('stops retrying as soon as the call succeeds', async () => {
    statuses = [503, 200];
    const res = await sut().post('/v1/x', { requestId: 'a' });
    expect(res.status).toBe(200);
    expect(calls).toHaveLength(2);
  });

  it.each([400, 500, 422])('never retries a %i', async (status) => {
    statuses = [status];
    const res = await sut().post('/v1/x', { requestId: 'a' });
    expect(res.status).toBe(status);
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});
