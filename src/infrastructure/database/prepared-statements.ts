import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { Query as PgQuery } from 'pg';

/** How many distinct statement texts may be prepared by this process; texts beyond run unnamed, as before. */
const MAX_PREPARED_TEXTS = 256;
const names = new Map<string, string>();

/**
 * Marks a statement text to run as a named prepared statement (when DB_PREPARED_STATEMENTS is on):
 * PostgreSQL parses and plans it once per connection, then only binds and executes it. For the
 * statements of the request paths: node-postgres sends unnamed statements, which the server parsed
 * and planned on every execution, and for the one-statement GET account read planning cost it more
 * CPU than executing it, on the two cores it shares with the service.
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

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * This pg client runs the statements marked by `prepared()` as named prepared statements; any other
 * text as before. The named query is built from the text (then named) rather than from a config
 * object: node-postgres copies a config object through its property descriptors, ~12 µs a statement.
 */
export function prepareMarkedStatements(client: EventEmitter & { query: Query }): void {
  const query = client.query.bind(client) as Query;
  client.query = (config: unknown, values?: unknown, callback?: unknown) => {
    const name = typeof config === 'string' && typeof callback !== 'function' ? names.get(config) : undefined;
    if (!name) return query(config, values, callback);
    return new Promise((resolve, reject) => {
      const named = new PgQuery(config as string, values as unknown[]) as PgQuery & { name: string; callback: (error: Error | null, result: unknown) => void };
      named.name = name;
      named.callback = (error, result) => (error ? reject(error) : resolve(result));
      query(named);
    });
  };
}
