/** HTML that is already safe: the result of `html`, never text a person typed. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/**
 * HTML's special characters as entities, and Unicode's bidirectional controls (embeddings, overrides,
 * isolates, marks) as their code points, `[U+202E]`: the API refuses them in emails and URLs since
 * 2026-12-07 (field-rules.ts, visibleCharacters), but values stored before can carry them, and a
 * right-to-left override would make "moc.knab-eurt@x" read as "x@true-bank.com" to the agent.
 */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"'`\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g,
    (c) => ESCAPES[c] ?? `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

/** Tagged template: every interpolated value is escaped unless it is itself `html` (arrays are joined). */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
