import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';

/** How many distinct statement texts may be prepared by this process; texts beyond run unnamed. */
const MAX_PREPARED_TEXTS = 256;
const names = new Map<string, string>();
let named = true;

/**
 * Marks a statement text to run as a named prepared statement (pg's documented `{ name, text,
 * values }`): PostgreSQL parses and plans it once per connection, then only binds and executes it.
 * For the statements of the request paths, where planning cost more than executing.
 *
 * Opt-in, per statement, because after five executions PostgreSQL may keep a generic plan, made
 * without the parameters' values: a statement marked here must have a generic plan as good as a
 * custom one (see the limit count's lateral look-up). Returns the text, to wrap it where it is built.
 */
export function prepared(text: string): string {
  if (!names.has(text) && names.size < MAX_PREPARED_TEXTS) {
    names.set(text, `s_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`);
  }
  return text;
}

/** DB_PREPARED_STATEMENTS, set once at start-up: off behind a PgBouncer in transaction mode older than 1.21. */
export function namePreparedStatements(on: boolean): void {
  named = on;
}

/** pg's query config for `text`: named when the text was marked `prepared()` (and names are on). */
export function statementConfig(text: string, values: readonly unknown[] = []): QueryConfig {
  const name = named ? names.get(text) : undefined;
  return name === undefined ? { text, values: [...values] } : { name, text, values: [...values] };
}
