import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { Query as PgQuery } from 'pg';
import { FAILED_STATEMENT, PipelinedStatement, StatementPipeline } from './statement-pipeline';

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
type QueryClient = EventEmitter & { query: Query; connection?: unknown; _types?: unknown };

/** Statements waiting to go with a client's next query (sendAhead). */
const ahead = new WeakMap<object, PipelinedStatement[]>();

/**
 * Statements to send with this client's next query, in the same round trip (StatementPipeline):
 * a call's BEGIN and locks go with its first read, its last write with its COMMIT. Nothing is sent
 * until then. Their failure fails that query, marked with the statement (FAILED_STATEMENT); after
 * one, PostgreSQL runs nothing more of the round trip.
 */
export function sendAhead(client: object, statements: readonly PipelinedStatement[]): void {
  const queued = ahead.get(client);
  if (queued) queued.push(...statements);
  else ahead.set(client, [...statements]);
}

/** Takes back what is waiting for the client's next query, unsent (a call that ends without one). */
export function dropAhead(client: object): readonly PipelinedStatement[] {
  const queued = ahead.get(client) ?? [];
  ahead.delete(client);
  return queued;
}

/**
 * The query of every pooled client: a text marked by `prepared()` runs as a named prepared statement
 * (when `prepare`, DB_PREPARED_STATEMENTS), any other as before; statements sent ahead (sendAhead)
 * go with the next query. The named query is built from the text (then named) rather than from a
 * config object: node-postgres copies a config object through its property descriptors, ~12 µs a statement.
 */
export function wrapClientQuery(client: QueryClient, prepare: boolean): void {
  const query = client.query.bind(client) as Query;
  const nameOf = (text: string) => (prepare ? names.get(text) : undefined);
  const single = (config: unknown, values?: unknown, callback?: unknown): unknown => {
    const name = typeof config === 'string' && typeof callback !== 'function' ? nameOf(config) : undefined;
    if (!name) return query(config, values, callback);
    return new Promise((resolve, reject) => {
      const named = new PgQuery(config as string, values as unknown[]) as PgQuery & { name: string; callback: (error: Error | null, result: unknown) => void };
      named.name = name;
      named.callback = (error, result) => (error ? reject(error) : resolve(result));
      query(named);
    });
  };
  /** What was sent ahead, one statement at a time, then the query: when they cannot share a round trip. */
  const inTurn = async (queued: readonly PipelinedStatement[], config: unknown, values: unknown): Promise<unknown> => {
    for (const statement of queued) {
      try {
        await single(statement.text, statement.values);
      } catch (error) {
        if (error instanceof Error) Object.defineProperty(error, FAILED_STATEMENT, { value: statement });
        throw error;
      }
    }
    return single(config, values);
  };
  client.query = (config: unknown, values?: unknown, callback?: unknown) => {
    const queued = ahead.get(client);
    if (queued === undefined) return single(config, values, callback);
    ahead.delete(client);
    if (typeof callback === 'function' || typeof values === 'function') {
      // A callback caller (none of the service's own): the same, answered through its callback.
      const done = (callback ?? values) as (error: unknown, result?: unknown) => void;
      inTurn(queued, config, typeof values === 'function' ? undefined : values).then((result) => done(null, result), done);
      return undefined;
    }
    const statements = pipelineOf(queued, config, values as unknown[] | undefined, nameOf);
    const connection = client.connection as Parameters<typeof StatementPipeline.canPipeline>[0] | undefined;
    if (!statements || !connection || !statements.every((statement) => StatementPipeline.canPipeline(connection, statement))) {
      return inTurn(queued, config, values);
    }
    return new Promise((resolve, reject) => {
      const pipeline = new StatementPipeline(statements, client._types);
      pipeline.callback = (error, results) => (error ? reject(error) : resolve(results?.[results.length - 1]));
      query(pipeline);
    });
  };
}

/**
 * The statements sent ahead and the query, named where marked, when they can share a round trip:
 * the query a text (not a query object), with values or a single statement (an extended-protocol
 * Parse takes one). Null otherwise.
 */
function pipelineOf(
  queued: readonly PipelinedStatement[],
  config: unknown,
  values: unknown[] | undefined,
  nameOf: (text: string) => string | undefined,
): PipelinedStatement[] | null {
  if (typeof config !== 'string') return null;
  const all: PipelinedStatement[] = [...queued, { text: config, values }];
  if (all.some((statement) => statement.values === undefined && statement.text.includes(';'))) return null;
  // Named in place: a failure is marked with the very statement its caller sent ahead.
  for (const statement of all) statement.name = nameOf(statement.text);
  return all;
}
