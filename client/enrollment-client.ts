// The specs' and the bench's raw HTTP client (any path, raw bodies, retries off on demand): not part of
// the package, which exports only index.ts (the typed SDK); a partner uses createEnrollmentSdk.
import { defaultRetryPolicy, type RetryPolicy, retryDelay, shouldRetry } from './retry-policy';

export interface ClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated subset of the client's scopes; all of them when omitted. */
  scope?: string;
  retry?: Partial<RetryPolicy>;
  /** Seconds before expiry at which the token is refreshed. */
  refreshSkewSeconds?: number;
}

export interface ApiResponse<T = ApiBody> {
  status: number;
  headers: Headers;
  body: T;
  /** Number of retries the policy made before this answer. */
  retries: number;
}

export interface ResponseDetail {
  code: number;
  subCode: number;
  description: string;
  field?: string;
  /** Every detail of a non-success answer: `{PUBLIC_URL}/docs/errors#{code}-{subCode}`. */
  docUrl?: string;
}

export interface ApiBody {
  requestId: string;
  responseDetails: ResponseDetail[];
  [key: string]: unknown;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Send this exact text instead of JSON-encoding `body` (malformed JSON tests). */
  rawBody?: string;
  /** Skip the retry policy (to observe a single 503). */
  noRetry?: boolean;
  /** Send no Authorization header. */
  anonymous?: boolean;
}

/** Untyped HTTP client of the specs: client-credentials tokens (refreshed before expiry) and the retry policy. */
export class EnrollmentClient {
  private token?: { value: string; expiresAt: number };
  private readonly policy: RetryPolicy;

  constructor(private readonly options: ClientOptions) {
    this.policy = { ...defaultRetryPolicy, ...(options.retry ?? {}) };
  }

  async accessToken(): Promise<string> {
    const skew = (this.options.refreshSkewSeconds ?? 30) * 1000;
    if (this.token && this.token.expiresAt - skew > Date.now()) return this.token.value;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.options.scope) form.set('scope', this.options.scope);
    const basic = Buffer.from(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`).toString('base64');
    const response = await fetch(`${this.options.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const body = (await response.json()) as { access_token?: string; expires_in?: number; error?: string };
    if (response.status !== 200 || !body.access_token) throw new Error(`token request failed: ${response.status} ${body.error ?? ''}`);
    this.token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 0) * 1000 };
    return body.access_token;
  }

  invalidateToken(): void {
    this.token = undefined;
  }

  get<T = ApiBody>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, undefined, options);
  }

  post<T = ApiBody>(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, body, options);
  }

  put<T = ApiBody>(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('PUT', path, body, options);
  }

  delete<T = ApiBody>(path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path, body, options);
  }

  /** One logical call: the same request resent on 503 only, per the retry policy. */
  async request<T = ApiBody>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const text = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    let retries = 0;
    for (;;) {
      const response = await this.send(method, path, text, options);
      const maxRetries = options.noRetry ? 0 : this.policy.ranges.length;
      if (!shouldRetry(response.status) || retries >= maxRetries) {
        const parsed = await parse(response);
        return { status: response.status, headers: response.headers, body: parsed as T, retries };
      }
      await response.arrayBuffer();
      await this.policy.sleep(retryDelay(this.policy, retries));
      retries += 1;
    }
  }

  private async send(method: string, path: string, text: string | undefined, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (text !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    if (!options.anonymous) headers.authorization = `Bearer ${await this.accessToken()}`;
    try {
      return await fetch(`${this.options.baseUrl}${path}`, { method, headers, body: text });
    } catch (error) {
      // A refused or reset connection is the service being unavailable: same treatment as a 503.
      return new Response(
        JSON.stringify({ requestId: '', responseDetails: [{ code: 503, subCode: 2, description: `transport: ${(error as Error).message}` }] }),
        {
          status: 503,
          headers: { 'content-type': 'application/json', 'x-client-transport-error': 'true' },
        },
      );
    }
  }
}

async function parse(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
