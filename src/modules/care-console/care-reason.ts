/** What the confirmation page says when a reason is refused. */
export const REASON_RULE =
  'A reason of 3 to 500 characters, at least 3 of them visible, without control characters or invisible formatting characters, is required.';

export interface CareReason {
  /** As stored in the audit trail: trimmed, every line break a line feed. */
  text: string;
  valid: boolean;
}

/**
 * The reason a staff member gives for a care operation (CONTRACT section 14), counted as the
 * textarea's maxlength counts it: a browser sends each line break as CRLF, which the textarea counts
 * as one character, so line breaks become LF (a lone CR too) before counting. The audit trail must be
 * readable as written: no hidden characters, and at least 3 a reader can see.
 */
export function careReason(raw: string): CareReason {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  const valid = text.length >= 3 && text.length <= 500 && !HIDDEN.test(text) && (text.match(VISIBLE) ?? []).length >= 3;
  return { text, valid };
}

/** A refused reason as the form shows it again: its hidden characters as spaces. */
export function shownReason(text: string): string {
  return text.replace(HIDDEN_ALL, ' ');
}

/**
 * Control characters other than tab and line feed (NUL, which PostgreSQL refuses in text, among them;
 * Cc is C0, DEL and C1), and format characters (Cf: zero-width spaces and joiners, bidi overrides that
 * would make the trail read otherwise than it was written).
 */
const HIDDEN = /(?![\t\n])[\p{Cc}\p{Cf}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');
/** Letters, digits, punctuation and symbols: not spaces, marks on their own, nor anything hidden. */
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/gu;
