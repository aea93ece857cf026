import { CatalogueEntry, ERROR_CATALOGUE } from './error-catalogue';

/** One row of `GET /v1/errors` and `/docs/errors` (CONTRACT section 11). */
export interface PublicError {
  httpStatus: number;
  code: number;
  subCode: number;
  description: string;
  docUrl: string;
}

/** The anchor of a (code, subCode) on `/docs/errors`; `docUrl` of every error detail points at it. */
export function errorAnchor(code: number, subCode: number): string {
  return `${code}-${subCode}`;
}

export function errorDocUrl(publicUrl: string, code: number, subCode: number): string {
  return `${publicUrl}/docs/errors#${errorAnchor(code, subCode)}`;
}

/**
 * The catalogue as partners see it: one entry per distinct (httpStatus, code, subCode), rows sharing
 * a triple folded into one whose description lists each distinct description once, in catalogue
 * order. Sorted by HTTP status, code, subCode. Derived from ERROR_CATALOGUE only: no second list.
 */
export function publicCatalogue(publicUrl: string, catalogue: Record<string, CatalogueEntry> = ERROR_CATALOGUE): PublicError[] {
  const byTriple = new Map<string, { entry: CatalogueEntry; descriptions: string[] }>();
  for (const entry of Object.values(catalogue)) {
    const triple = `${entry.http}/${entry.code}/${entry.subCode}`;
    const seen = byTriple.get(triple);
    if (!seen) byTriple.set(triple, { entry, descriptions: [entry.description] });
    else if (!seen.descriptions.includes(entry.description)) seen.descriptions.push(entry.description);
  }
  return [...byTriple.values()]
    .map(({ entry, descriptions }) => ({
      httpStatus: entry.http,
      code: entry.code,
      subCode: entry.subCode,
      description: descriptions.join('; '),
      docUrl: errorDocUrl(publicUrl, entry.code, entry.subCode),
    }))
    .sort((a, b) => a.httpStatus - b.httpStatus || a.code - b.code || a.subCode - b.subCode);
}
