import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/api-types';
import { encryptUserData, serviceEncryptionKey, type ServiceEncryptionKey } from './jwe';
import { defaultRetryPolicy, type RetryPolicy, retryDelay, shouldRetry } from './retry-policy';
import { TokenError, TokenProvider } from './token-provider';

export type Schemas = components['schemas'];
export type EnrollmentRequest = Schemas['CreateEnrollmentDto'];
export type EnrollmentUserData = Schemas['EnrollmentUserDataDto'];
export type AccountResponse = Schemas['AccountResponse'];
export type ResponseDetail = Schemas['ResponseDetail'];
export type ApiClient = Client<paths>;

export interface SdkOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated subset of the client's scopes; all of them when omitted. */
  scope?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

/**
 * The API's retry policy around one call: only on 503 (or no answer at all), the exact same
 * request (same requestId), at most 3 retries after random waits of 1-1000, 1000-5000 and
 * 5000-30000 ms. A 400 or 500 is never retried, nor a token the token endpoint refused (a
 * `TokenError` other than its 503): that is an answer, not its absence.
 */
export function retrying(policy: RetryPolicy, send: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let retry = 0; ; retry += 1) {
      const last = retry >= policy.ranges.length;
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (error) {
        if (last || (error instanceof TokenError && !shouldRetry(error.status))) throw error;
        await policy.sleep(retryDelay(policy, retry));
        continue;
      }
      if (last || !shouldRetry(response.status)) return response;
      await response.body?.cancel();
      await policy.sleep(retryDelay(policy, retry));
    }
  };
}

/** The typed client: openapi-fetch over the generated types, with tokens cached until they expire and the retry policy. */
export function createEnrollmentSdk(options: SdkOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
  const tokens = new TokenProvider({ ...options, fetch: options.fetch });
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...(options.retry ?? {}) };
  const authorized = async (request: Request): Promise<Response> => {
    // The spare copy keeps the body for a second send: a Request's body can be read once.
    const spare = request.clone();
    const withToken = new Request(request, { headers: new Headers(request.headers) });
    withToken.headers.set('authorization', `Bearer ${await tokens.accessToken()}`);
    const response = await baseFetch(withToken);
    // A token revoked or expired early: one fresh token, then the answer as it comes.
    if (response.status !== 401) return response;
    await response.body?.cancel();
    tokens.invalidate();
    const again = new Request(spare, { headers: new Headers(spare.headers) });
    again.headers.set('authorization', `Bearer ${await tokens.accessToken()}`);
    return baseFetch(again);
  };
  const api: ApiClient = createClient<paths>({ baseUrl: options.baseUrl, fetch: retrying(policy, authorized) });
  // The service's enc key, fetched once; a failed fetch is not kept, and a JWE the service could not
  // open (its key rotated away, 400/100/5 on encryptedUserData) makes it fetched again (enrollEncrypted).
  let encKey: Promise<ServiceEncryptionKey> | undefined;
  const currentKey = (): Promise<ServiceEncryptionKey> => {
    const fetched = (encKey ??= serviceEncryptionKey(options.baseUrl, options.fetch));
    fetched.catch(() => {
      if (encKey === fetched) encKey = undefined;
    });
    return fetched;
  };

  return {
    /** Every operation of the document, typed: `api.GET('/v1/programs/{programCode}/accounts/{accountIdentifier}/users', { params })`. */
    api,
    tokens,
    enroll: (programCode: string, body: EnrollmentRequest, headers?: Record<string, string>) =>
      api.POST('/v1/programs/{programCode}/enrollments', { params: { path: { programCode } }, body, headers }),
    /** An encryption partner's enrollment: encryptedUserData sealed to the service's enc key (JWE ECDH-ES/A256GCM), unless already sealed. */
    async enrollEncrypted(programCode: string, body: EnrollmentRequest) {
      const data = body.encryptedUserData;
      const send = async () => {
        const sealed = typeof data === 'string' ? data : await encryptUserData(data, await currentKey());
        return api.POST('/v1/programs/{programCode}/enrollments', { params: { path: { programCode } }, body: { ...body, encryptedUserData: sealed } });
      };
      const first = await send();
      if (typeof data === 'string' || !unopened(first.error)) return first;
      // A 400 stores nothing, so the same requestId may be sent again, sealed to the key the JWKS lists now.
      encKey = undefined;
      return send();
    },
    getAccount: (programCode: string, accountIdentifier: string) =>
      api.GET('/v1/programs/{programCode}/enrollments/accounts/{accountIdentifier}', { params: { path: { programCode, accountIdentifier } } }),
  };
}

export type EnrollmentSdk = ReturnType<typeof createEnrollmentSdk>;

/** A 400/100/5 on encryptedUserData itself: the service could not open the JWE. */
function unopened(error: unknown): boolean {
  const detail = (error as { responseDetails?: ResponseDetail[] } | undefined)?.responseDetails?.[0];
  return detail?.code === 100 && detail.subCode === 5 && detail.field === 'encryptedUserData';
}

/** True when the answer is a success (code 0); declines (codes 2 and 5) come with HTTP 200 too. */
export function isSuccess(body: { responseDetails: ResponseDetail[] } | undefined): boolean {
  return body?.responseDetails[0]?.code === 0;
}
