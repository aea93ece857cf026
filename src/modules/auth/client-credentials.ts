/** A client's id and secret, as sent (client_secret_basic or client_secret_post). */
export interface ClientCredentials {
  id: string;
  secret: string;
}

/** The client id and secret of an HTTP Basic header (client_secret_basic), if it carries one. */
export function basicCredentials(header: string | undefined): ClientCredentials | undefined {
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
