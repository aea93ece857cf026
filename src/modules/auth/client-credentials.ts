/** The client id and secret of an HTTP Basic header (client_secret_basic), if it carries one. */
export function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return value;
    }
  };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
}

/** The client id a token request names (Basic header first, else the form's client_id), for rate limiting. */
export function requestedClientId(authorization: string | undefined, body: unknown): string | undefined {
  const basic = basicCredentials(authorization);
  if (basic) return basic.id;
  const formId = body && typeof body === 'object' ? (body as { client_id?: unknown }).client_id : undefined;
  return typeof formId === 'string' && formId !== '' ? formId : undefined;
}
