import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';

/** How many distinct statement texts get a name in this process; texts beyond run unnamed, as before. */
const MAX_NAMED_TEXTS = 256;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_TEXTS) {
    name = `s_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    names.set(text, name);
  }
  return name;
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Every parameterised statement of this pg client runs as a named prepared statement (named by a
 * hash of its text): PostgreSQL parses and plans it once per connection, not on every execution.
 * node-postgres sends unnamed statements by default, so the server parsed and planned each one
 * again: for the one-statement GET account read, planning cost PostgreSQL more CPU than executing
 * it, on the two cores it shares with the service. Statements without parameters (BEGIN, COMMIT,
 * SET) keep the simple protocol. Off with DB_PREPARED_STATEMENTS=false (a PgBouncer in transaction
 * mode before 1.21 cannot keep named statements).
 */
export function prepareParameterisedStatements(client: EventEmitter & { query: Query }): void {
  const query = client.query.bind(client) as Query;
  client.query = (config: unknown, values?: unknown, callback?: unknown) => {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && typeof callback !== 'function') {
      const name = nameOf(config);
      if (name) return query({ name, text: config, values });
    }
    return query(config, values, callback);
  };
}
