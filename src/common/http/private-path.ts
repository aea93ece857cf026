import { decodedOrAsIs } from './percent-decoding';

/** What stands in a log line or a span for a path segment that reads as personal data (as the log's censored keys). */
export const REDACTED_SEGMENT = '[redacted]';

/** A number as people type one: digits, spaces, dashes, dots, parentheses, a leading +. */
const NUMBER_AS_TYPED = /^\+?[\d\s().-]+$/;
/** The service's identifiers, which can be all digits (`00000000-0000-4000-8000-000000000000`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A request path as log lines and spans carry it (CONTRACT section 16: no personal data in either):
 * a segment that reads as a person's number (9 or more digits: an SSN, an ITIN, a phone, a card
 * number) or an email (an @, escaped or not) is `[redacted]`. The service's own segments are
 * program codes and UUIDs, so this only ever bites on a value pasted into a URL by mistake; the route
 * pattern is logged beside the path. A path without a digit run, an @ or an escape is returned as it is.
 */
export function privatePath(path: string): string {
  if (!/\d{3}|@|%/.test(path)) return path;
  return path
    .split('/')
    .map((segment) => (isPersonal(segment) ? REDACTED_SEGMENT : segment))
    .join('/');
}

function isPersonal(segment: string): boolean {
  const text = decodedOrAsIs(segment);
  if (text.includes('@')) return true;
  return NUMBER_AS_TYPED.test(text) && !UUID.test(text) && text.replace(/\D/g, '').length >= 9;
}
