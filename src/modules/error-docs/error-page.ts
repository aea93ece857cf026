import { createHash } from 'node:crypto';
import { errorAnchor, PublicError } from '../../common/errors/public-catalogue';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const STYLE =
  'body{font-family:sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}tr:target{background:#ffd}';

/** No script, no outside resource: the page is static text whose one style block is allowed by its hash. */
export const ERROR_PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** `/docs/errors`: the catalogue as a table, each row anchored `id="{code}-{subCode}"` (docUrl's fragment). */
export function renderErrorPage(errors: readonly PublicError[]): string {
  const rows = errors
    .map(
      (e) =>
        `<tr id="${escapeHtml(errorAnchor(e.code, e.subCode))}"><td>${e.httpStatus}</td><td>${e.code}</td><td>${e.subCode}</td>` +
        `<td>${escapeHtml(e.description)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error catalogue</title>
<style>${STYLE}</style>
</head><body>
<h1>Error catalogue</h1>
<p>Every error and business decline the API answers with, by HTTP status, code and subCode. The same list as JSON: <code>GET /v1/errors</code>.
Each <code>responseDetails</code> item of a non-success answer links here with <code>docUrl</code>. Retry only on 503, with the same request.</p>
<table>
<thead><tr><th>HTTP</th><th>code</th><th>subCode</th><th>description</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
</body></html>
`;
}
