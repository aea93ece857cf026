import { createEnrollmentSdk } from './sdk';
import { TokenError } from './token-provider';

/** A fake network: `/oauth2/token` answers `tokenStatus`; every other request gets the next of `answers` (undefined: no answer). */
function network(answers: Array<number | undefined>, tokenStatus = 200) {
  const sent: Array<{ url: string; authorization: string | null; body: string }> = [];
  let tokens = 0;
  const fetch = jest.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    if (request.url.endsWith('/oauth2/token')) {
      tokens += 1;
      const body = tokenStatus === 200 ? { access_token: `t${tokens}`, token_type: 'Bearer', expires_in: 3600 } : { error: 'invalid_client' };
      return new Response(JSON.stringify(body), { status: tokenStatus });
    }
    sent.push({ url: request.url, authorization: request.headers.get('authorization'), body: await request.text() });
    const status = answers.shift();
    if (status === undefined) throw new TypeError('fetch failed');
    return new Response(JSON.stringify({ requestId: 'r', responseDetails: [{ code: 0, subCode: 0, description: 'Success' }] }), {
      status,
      headers: { 'content-type': 'application/json' },
    });
  });
  const waits: number[] = [];
  const sdk = createEnrollmentSdk({
    baseUrl: 'http://api.test',
    clientId: 'acme',
    clientSecret: 'secret',
    fetch: fetch as typeof globalThis.fetch,
    retry: { sleep: async (ms) => void waits.push(ms), random: () => 0 },
  });
  return { sdk, sent, waits, tokenRequests: () => tokens };
}

const body = { requestId: 'r-1', termsAcceptanceDateTime: '2026-11-26T00:00:00Z', encryptedUserData: {} } as never;

describe('createEnrollmentSdk (the API retry policy: SERVICE.md, "at most 3 retries", never on 400 or 500)', () => {
  it('no answer at all: the call and 3 identical retries, then the failure', async () => {
    const { sdk, sent, waits } = network([undefined, undefined, undefined, undefined, undefined, 200]);
    await expect(sdk.enroll('sandbox', body)).rejects.toThrow('fetch failed');
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((s) => s.body)).size).toBe(1);
    expect(waits).toEqual([1, 1000, 5000]);
  });

  it('503, then no answer: still 3 retries in all', async () => {
    const { sdk, sent } = network([503, 503, undefined, 503, 200]);
    const { response } = await sdk.enroll('sandbox', body);
    expect(response.status).toBe(503);
    expect(sent).toHaveLength(4);
  });

  it('a token refused (401 invalid_client) is not retried: one token request, the TokenError, no API call', async () => {
    const { sdk, sent, waits, tokenRequests } = network([200], 401);
    await expect(sdk.enroll('sandbox', body)).rejects.toBeInstanceOf(TokenError);
    expect({ tokenRequests: tokenRequests(), sent: sent.length, waits }).toEqual({ tokenRequests: 1, sent: 0, waits: [] });
  });

  it('a 401 on a call with a body gets one fresh token and the same body, at once, without using up a retry', async () => {
    const { sdk, sent, waits, tokenRequests } = network([401, 200]);
    const { response } = await sdk.enroll('sandbox', body);
    expect(response.status).toBe(200);
    expect(sent.map((s) => s.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
    expect(sent[1]?.body).toBe(sent[0]?.body);
    expect(JSON.parse(sent[1]?.body ?? '{}')).toMatchObject({ requestId: 'r-1' });
    expect({ waits, tokenRequests: tokenRequests() }).toEqual({ waits: [], tokenRequests: 2 });
  });
});
