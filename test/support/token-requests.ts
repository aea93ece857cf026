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
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
  expect(answer.headers.get('ratelimit-policy')).toMatch(/^"client";q=\d+;w=60, "address";q=\d+;w=60$/);
  expect(answer.headers.get('ratelimit')).toMatch(/^"(client|address)";r=0;t=\d+$/);
}
