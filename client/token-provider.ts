/** Client-credentials tokens of one client, cached until shortly before they expire. */
export interface TokenProviderOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated subset of the client's scopes; all of them when omitted. */
  scope?: string;
  /** Seconds before expiry at which the token is refreshed (default 30). */
  refreshSkewSeconds?: number;
  fetch?: typeof fetch;
}

export class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly error: string | undefined,
  ) {
    super(`token request failed: ${status} ${error ?? ''}`.trim());
  }
}

export class TokenProvider {
  private token?: { value: string; expiresAt: number };
  private inFlight?: Promise<string>;

  constructor(private readonly options: TokenProviderOptions) {}

  /** The cached token, or a new one (concurrent callers share one token request). */
  async accessToken(): Promise<string> {
    const skew = (this.options.refreshSkewSeconds ?? 30) * 1000;
    if (this.token && this.token.expiresAt - skew > Date.now()) return this.token.value;
    this.inFlight ??= this.request().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  invalidate(): void {
    this.token = undefined;
  }

  private async request(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.options.scope) form.set('scope', this.options.scope);
    // RFC 6749 §2.3.1: both parts form-urlencoded before base64.
    const basic = Buffer.from(`${encodeURIComponent(this.options.clientId)}:${encodeURIComponent(this.options.clientSecret)}`).toString('base64');
    const response = await (this.options.fetch ?? fetch)(`${this.options.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const body = (await response.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; error?: string };
    if (response.status !== 200 || !body.access_token) throw new TokenError(response.status, body.error);
    this.token = { value: body.access_token, expiresAt: Date.now() + (body.expires_in ?? 0) * 1000 };
    return body.access_token;
  }
}
