import { CatalogueEntry, ERROR_CATALOGUE, ErrorKey } from './error-catalogue';
import { ERROR_GUIDANCE, ErrorGuidance, RetryOutlook } from './error-guidance';

/** One row of `GET /v1/errors` and `/docs/errors` (CONTRACT section 11). */
export interface PublicError {
  httpStatus: number;
  code: number;
  subCode: number;
  description: string;
  docUrl: string;
}

/** An entry of `/docs/errors`: the public entry, what causes it and what to do (each distinct pair of its rows), and whether a retry can succeed. */
export interface DocumentedError extends PublicError {
  guidance: Array<Pick<ErrorGuidance, 'cause' | 'action'>>;
  retry: RetryOutlook;
}

/** The anchor of a (code, subCode) on `/docs/errors`; `docUrl` of every error detail points at it. */
export function errorAnchor(code: number, subCode: number): string {
  return `${code}-${subCode}`;
}

export function errorDocUrl(publicUrl: string, code: number, subCode: number): string {
  return `${publicUrl}/docs/errors#${errorAnchor(code, subCode)}`;
}

/** The catalogue's rows folded by (httpStatus, code, subCode), in catalogue order within each, sorted by the triple. */
function byTriple<K extends string>(catalogue: Readonly<Record<K, CatalogueEntry>>): Array<{ entry: CatalogueEntry; keys: K[] }> {
  const groups = new Map<string, { entry: CatalogueEntry; keys: K[] }>();
  for (const key of Object.keys(catalogue) as K[]) {
    const entry = catalogue[key];
    const triple = `${entry.http}/${entry.code}/${entry.subCode}`;
    const group = groups.get(triple);
    if (group) group.keys.push(key);
    else groups.set(triple, { entry, keys: [key] });
  }
  return [...groups.values()].sort((a, b) => a.entry.http - b.entry.http || a.entry.code - b.entry.code || a.entry.subCode - b.entry.subCode);
}

const distinct = <T>(items: T[], id: (item: T) => string = String): T[] => items.filter((item, i) => items.findIndex((other) => id(other) === id(item)) === i);

function publicEntry<K extends string>(
  publicUrl: string,
  catalogue: Readonly<Record<K, CatalogueEntry>>,
  { entry, keys }: { entry: CatalogueEntry; keys: K[] },
): PublicError {
  return {
    httpStatus: entry.http,
    code: entry.code,
    subCode: entry.subCode,
    description: distinct(keys.map((key) => catalogue[key].description)).join('; '),
    docUrl: errorDocUrl(publicUrl, entry.code, entry.subCode),
  };
}

/**
 * The catalogue as partners see it: one entry per distinct (httpStatus, code, subCode), rows sharing
 * a triple folded into one whose description lists each distinct description once, in catalogue
 * order. Sorted by HTTP status, code, subCode. Derived from ERROR_CATALOGUE only: no second list.
 */
export function publicCatalogue(publicUrl: string, catalogue: Readonly<Record<string, CatalogueEntry>> = ERROR_CATALOGUE): PublicError[] {
  return byTriple(catalogue).map((group) => publicEntry(publicUrl, catalogue, group));
}

/**
 * `publicCatalogue` with each entry's guidance (ERROR_GUIDANCE): the causes and actions of its rows,
 * each distinct pair once, and its retry outlook (the rows of one triple share it; a spec checks).
 */
export function documentedCatalogue(
  publicUrl: string,
  catalogue: Readonly<Record<ErrorKey, CatalogueEntry>> = ERROR_CATALOGUE,
  guidance: Readonly<Record<ErrorKey, ErrorGuidance>> = ERROR_GUIDANCE,
): DocumentedError[] {
  return byTriple(catalogue).map((group) => ({
    ...publicEntry(publicUrl, catalogue, group),
    guidance: distinct(
      group.keys.map((key) => ({ cause: guidance[key].cause, action: guidance[key].action })),
      ({ cause, action }) => `${cause}\n${action}`,
    ),
    retry: guidance[group.keys[0] as ErrorKey].retry,
  }));
}
