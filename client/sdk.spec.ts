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

describe("createEnrollmentSdk().enrollEncrypted: the service's enc key", () => {
  /** A fake service: the JWKS answers in turn from `jwks` (undefined: no answer); enrollments answer in turn from `answers`. */
  async function service(jwks: Array<'down' | 'key1' | 'key2' | 503>, answers: Array<'ok' | 'unopened'>) {
    const { generateKeyPair, exportJWK, decodeProtectedHeader } = await import('jose');
    const keys = {
      key1: { ...(await exportJWK((await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })).publicKey)), kid: 'enc-1', use: 'enc' },
      key2: { ...(await exportJWK((await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true })).publicKey)), kid: 'enc-2', use: 'enc' },
    };
    const sealedTo: string[] = [];
    let jwksRequests = 0;
    const fetch = jest.fn(async (input: string | URL | Request, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      if (request.url.endsWith('/oauth2/token')) return new Response(JSON.stringify({ access_token: 't', token_type: 'Bearer', expires_in: 3600 }));
      if (request.url.endsWith('/.well-known/jwks.json')) {
        jwksRequests += 1;
        const next = jwks.shift();
        if (next === 'down' || next === undefined) throw new TypeError('fetch failed');
        if (next === 503) return new Response('{}', { status: 503 });
        return new Response(JSON.stringify({ keys: [keys[next]] }));
      }
      const sent = JSON.parse(await request.text()) as { encryptedUserData: string };
      sealedTo.push(String(decodeProtectedHeader(sent.encryptedUserData).kid));
      const unopened = answers.shift() === 'unopened';
      const detail = unopened
        ? { code: 100, subCode: 5, description: 'encryptedUserData has an invalid value or type', field: 'encryptedUserData' }
        : { code: 0, subCode: 0, description: 'Success' };
      return new Response(JSON.stringify({ requestId: 'r-1', responseDetails: [detail] }), {
        status: unopened ? 400 : 200,
        headers: { 'content-type': 'application/json' },
      });
    });
    const sdk = createEnrollmentSdk({
      baseUrl: 'http://api.test',
      clientId: 'acme',
      clientSecret: 'secret',
      fetch: fetch as typeof globalThis.fetch,
      retry: { sleep: async () => undefined, random: () => 0 },
    });
    return { sdk, sealedTo, jwksRequests: () => jwksRequests };
  }
  const plain = { requestId: 'r-1', termsAcceptanceDateTime: '2026-11-26T00:00:00Z', encryptedUserData: { firstName: 'José' } } as never;

  it('a JWKS that failed once is asked again on the next call, not remembered as a failure', async () => {
    const { sdk, sealedTo } = await service(['down', 503, 'key1'], ['ok']);
    await expect(sdk.enrollEncrypted('sandbox', plain)).rejects.toThrow('fetch failed');
    await expect(sdk.enrollEncrypted('sandbox', plain)).rejects.toThrow('503');
    const { response } = await sdk.enrollEncrypted('sandbox', plain);
    expect(response.status).toBe(200);
    expect(sealedTo).toEqual(['enc-1']);
  });

  it('the key is fetched once, and named by its kid in the JWE', async () => {
    const { sdk, sealedTo, jwksRequests } = await service(['key1'], ['ok', 'ok']);
    await sdk.enrollEncrypted('sandbox', plain);
    await sdk.enrollEncrypted('sandbox', plain);
    expect({ sealedTo, jwks: jwksRequests() }).toEqual({ sealedTo: ['enc-1', 'enc-1'], jwks: 1 });
  });

  it('a JWE the service could not open (its key rotated away: 400/100/5) is sealed again to the fresh key and sent once more', async () => {
    const { sdk, sealedTo, jwksRequests } = await service(['key1', 'key2'], ['ok', 'unopened', 'ok']);
    await sdk.enrollEncrypted('sandbox', plain);
    const { response } = await sdk.enrollEncrypted('sandbox', plain);
    expect(response.status).toBe(200);
    expect({ sealedTo, jwks: jwksRequests() }).toEqual({ sealedTo: ['enc-1', 'enc-1', 'enc-2'], jwks: 2 });
  });

  it('a JWE refused again with the fresh key is answered as it is (no loop)', async () => {
    const { sdk, sealedTo } = await service(['key1', 'key1'], ['unopened', 'unopened']);
    const { response } = await sdk.enrollEncrypted('sandbox', plain);
    expect(response.status).toBe(400);
    expect(sealedTo).toHaveLength(2);
  });
});
