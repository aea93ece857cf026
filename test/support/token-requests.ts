import { request as httpRequest } from 'node:http';

/** Raw token requests (no client library), for the rate-limit specs. */

export interface Answer {
  status: number;
  body: { access_token?: string; error?: string; responseDetails?: Array<{ code: number; subCode: number; description: string }> };
  headers: Headers;
}

export async function tokenRequest(baseUrl: string, clientId: string, secret: string, method: 'basic' | 'post' = 'basic'): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (method === 'basic') headers.authorization = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
  else Object.assign(form, { client_id: clientId, client_secret: secret });
  const response = await fetch(`${baseUrl}/oauth2/token`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  return { status: response.status, body: (await response.json()) as Answer['body'], headers: response.headers };
}

/** A 429 in the service's envelope (CONTRACT section 13: 429/429/0) with Retry-After and the IETF headers. */
export function expectTooManyTokenRequests(answer: Answer): void {
  expect(answer.status).toBe(429);
  expect(answer.body.access_token).toBeUndefined();
  expect(answer.body.responseDetails).toEqual([expect.objectContaining({ code: 429, subCode: 0 })]);
  // CONTRACT section 2: the 429 adds responseDetails beside the RFC 6749 error.
  expect(answer.body).toMatchObject({ error: 'too_many_requests', error_description: expect.any(String) });
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(answer.headers.get('ratelimit-policy')).toMatch(/^"client";q=\d+;w=60, "client-address";q=\d+;w=60, "address";q=\d+;w=60$/);
  expect(answer.headers.get('ratelimit')).toMatch(/^"(client|client-address|address)";r=0;t=\d+$/);
}

/**
 * A client_secret_basic token request sent from `localAddress` (any of 127.0.0.0/8 reaches the
 * loopback listener), optionally with X-Forwarded-For, through node:http (fetch cannot bind a source).
 */
export function tokenRequestFrom(
  baseUrl: string,
  localAddress: string,
  clientId: string,
  secret: string,
  forwardedFor?: string,
  form: { contentType: string; body: string } = { contentType: 'application/x-www-form-urlencoded', body: 'grant_type=client_credentials' },
): Promise<Answer> {
  const url = new URL(`${baseUrl}/oauth2/token`);
  const body = form.body;
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: {
          'content-type': form.contentType,
          'content-length': Buffer.byteLength(body),
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
          ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as Answer['body'], headers });
        });
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}
