import { createHash } from 'node:crypto';
import { RETRY_WORDING } from '../../common/errors/error-guidance';
import { DocumentedError, errorAnchor } from '../../common/errors/public-catalogue';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const STYLE =
  'body{font-family:sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}' +
  'tr:target{background:#ffd}td ul{margin:0;padding-left:1.1rem}td.retry-yes,td.retry-afterChange{color:#1d6b2f}td.retry-no{color:#a4161a}';

/** No script, no outside resource: the page is static text whose one style block is allowed by its hash. */
export const ERROR_PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** One text, or a list when the rows of a triple say several. */
function cell(texts: string[]): string {
  return texts.length === 1 ? escapeHtml(texts[0] as string) : `<ul>${texts.map((text) => `<li>${escapeHtml(text)}</li>`).join('')}</ul>`;
}

/**
 * `/docs/errors`: the catalogue as a table, each row anchored `id="{code}-{subCode}"` (docUrl's
 * fragment), with what causes it, what to do, and whether a retry can succeed.
 */
export function renderErrorPage(errors: readonly DocumentedError[]): string {
  const rows = errors
    .map(
      (e) =>
        `<tr id="${escapeHtml(errorAnchor(e.code, e.subCode))}"><td>${e.httpStatus}</td><td>${e.code}</td><td>${e.subCode}</td>` +
        `<td>${escapeHtml(e.description)}</td><td>${cell(e.guidance.map((g) => g.cause))}</td><td>${cell(e.guidance.map((g) => g.action))}</td>` +
        `<td class="retry-${e.retry}">${escapeHtml(RETRY_WORDING[e.retry].label)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error catalogue</title>
<style>${STYLE}</style>
</head><body>
<h1>Error catalogue</h1>
<p>Every error and business decline the API answers with, by HTTP status, code and subCode: what causes it, what to do, and whether sending
the call again can succeed. The same list (without the guidance) as JSON: <code>GET /v1/errors</code>.
Each <code>responseDetails</code> item of a non-success answer links here with <code>docUrl</code>.</p>
<p>Retrying is safe: a state-changing call with the requestId of an earlier one replays that call's answer or completes it, never acts twice.
A call refused by validation (HTTP 400) is not recorded, so its corrected version may keep the requestId.</p>
<p>Can a retry succeed? ${Object.values(RETRY_WORDING)
    .map(({ label, meaning }) => `<strong>${escapeHtml(label)}</strong>: ${escapeHtml(meaning)}`)
    .join('; ')}.</p>
<table>
<thead><tr><th>HTTP</th><th>code</th><th>subCode</th><th>description</th><th>cause</th><th>what to do</th><th>can a retry succeed?</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body></html>
`;
}
