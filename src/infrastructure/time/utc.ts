/**
 * The instant (ms since the epoch) of an ISO 8601 date or date-time, NaN when it is none. A date-time
 * without an offset is UTC (SERVICE.md: date and time values are UTC across the service), where
 * `Date.parse` would read it in the server's time zone; a date alone is UTC for both.
 */
export function utcMillis(text: string): number {
  const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text);
  return Date.parse(zoned || !text.includes('T') ? text : `${text}Z`);
}
