/** What the confirmation page says when a reason is refused. */
export const REASON_RULE = 'A reason of 3 to 500 characters, without control characters, is required.';

export interface CareReason {
  /** As stored in the audit trail: trimmed, every line break a line feed. */
  text: string;
  valid: boolean;
}

/**
 * The reason a staff member gives for a care operation (CONTRACT section 14), counted as the
 * textarea's maxlength counts it: a browser sends each line break as CRLF, which the textarea counts
 * as one character, so line breaks become LF (a lone CR too) before counting.
 */
export function careReason(raw: string): CareReason {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  return { text, valid: text.length >= 3 && text.length <= 500 && ![...text].some(isControl) };
}

/** A refused reason as the form shows it again: its control characters as spaces. */
export function shownReason(text: string): string {
  return [...text].map((ch) => (isControl(ch) ? ' ' : ch)).join('');
}

/**
 * A C0 control character other than tab and line feed, or DEL. Line breaks and tabs of a textarea
 * are text; any other control character (NUL, which PostgreSQL refuses in text, among them) is not
 * part of a reason.
 */
function isControl(ch: string): boolean {
  const code = ch.charCodeAt(0);
  return (code < 0x20 && code !== 0x09 && code !== 0x0a) || code === 0x7f;
}
