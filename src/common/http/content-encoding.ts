import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether a request's body is content-encoded (RFC 9110 section 8.4): any coding but `identity`.
 * The service reads bodies as sent and decodes none, so an encoded body is refused (415, RFC 9110
 * section 15.5.16) rather than read as plain JSON or form text.
 */
export function isEncodedBody(headers: IncomingHttpHeaders): boolean {
  const coding = headers['content-encoding'];
  if (coding === undefined) return false;
  return coding.split(',').some((part) => {
    const name = part.trim().toLowerCase();
    return name !== '' && name !== 'identity';
  });
}
