import { Client } from 'pg';
import { CatalogueEntry, ERROR_CATALOGUE } from '../../src/common/errors/error-catalogue';

/** Helpers of the fuzz and security specs: catalogue membership and a digest of every stored row. */

const ENTRIES: CatalogueEntry[] = Object.values(ERROR_CATALOGUE);

export interface Detail {
  code: number;
  subCode: number;
  description?: string;
}

/** A (code, subCode) pair some catalogue row defines, with that row's HTTP status when given. */
export function isCatalogued(detail: Detail, http?: number): boolean {
  return ENTRIES.some((e) => e.code === detail.code && e.subCode === detail.subCode && (http === undefined || e.http === http));
}

/**
 * One md5 per table of the connection's schema, over every row's text: equal digests mean no row
 * was added, removed or changed. Callers run the app with JOBS_ENABLED=false so no background
 * worker writes between two digests.
 */
export async function tableDigest(db: Client): Promise<Record<string, string>> {
  const tables = (
    await db.query<{ name: string }>(
      `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1`,
    )
  ).rows.map((r) => r.name);
  const union = tables.map((t) => `select '${t}' as t, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as d from "${t}" x`).join(' union all ');
  const rows = (await db.query<{ t: string; d: string }>(union)).rows;
  return Object.fromEntries(rows.map((r) => [r.t, r.d]));
}

/** How many rows `table` of the app's schema holds now (a test's own connection, closed after). */
export async function rowsIn(app: { db(): Promise<Client> }, table: string): Promise<number> {
  const db = await app.db();
  try {
    return (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]?.n ?? 0;
  } finally {
    await db.end();
  }
}
