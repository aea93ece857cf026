/**
 * Preloaded into the service under test (`node -r dist/bench/sql-probe.js dist/src/main.js`) to
 * count the SQL statements each HTTP request issues. Passive until the bench sends
 * `{ probe: 'start' }` over the IPC channel; `{ probe: 'stop' }` answers with the statement kinds of
 * every request completed meanwhile, and each request's selects whole (text and values) for
 * baseline (a) to run the same reads. Statements are attributed through AsyncLocalStorage started
 * at the HTTP `request` event, so background work (job polling, webhook delivery) is not counted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as http from 'node:http';
import { Client } from 'pg';
import { encodeValues, KIND_LETTERS, RecordedRead, statementKind } from './sql-plan';

interface RequestTrace {
  method: string;
  url: string;
  kinds: string[];
  /** Round trips: a statement issued while earlier ones on its client still wait for answers shares their trip (pg's pipeline mode). */
  trips: number;
  /** Per statement: which pg connection ran it (1 = the first one the request used) and its text. */
  statements: Array<{ connection: number; sql: string }>;
  /** Its selects, whole, for baseline (a) to run the same reads (sql-plan.ts asBaselineRead). */
  reads: RecordedRead[];
  connections: Map<Client, number>;
}

export interface ProbeReport {
  probe: 'report';
  requests: Array<{
    method: string;
    path: string;
    status: number;
    plan: string;
    /** Round trips to the database (statements sent together count once). */
    trips: number;
    connections: number;
    statements?: Array<{ connection: number; sql: string }>;
    reads: RecordedRead[];
  }>;
}

const storage = new AsyncLocalStorage<RequestTrace>();
let enabled = false;
let completed: ProbeReport['requests'] = [];

type Emit = (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
const originalEmit = http.Server.prototype.emit as Emit;
http.Server.prototype.emit = function emit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
  if (!enabled || event !== 'request') return originalEmit.call(this, event, ...args);
  const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
  const trace: RequestTrace = { method: req.method ?? '', url: req.url ?? '', kinds: [], trips: 0, statements: [], reads: [], connections: new Map() };
  res.once('finish', () => {
    if (!enabled) return;
    // Statement texts only for the first request of a calibration: enough to read the plan.
    const statements = completed.length === 0 ? trace.statements : undefined;
    completed.push({
      method: trace.method,
      path: trace.url,
      status: res.statusCode,
      plan: trace.kinds.join(''),
      trips: trace.trips,
      connections: trace.connections.size,
      statements,
      reads: trace.reads,
    });
  });
  return storage.run(trace, () => originalEmit.call(this, event, ...args));
} as typeof http.Server.prototype.emit;

// pg's Pool and TypeORM both end in Client#query: one patch sees every statement.
const originalQuery = Client.prototype.query as (...args: unknown[]) => unknown;
/** Statements sent on a client and not answered yet. */
const unanswered = new WeakMap<Client, number>();
(Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(this: Client, ...args: unknown[]) {
  const result = originalQuery.apply(this, args);
  if (enabled) {
    const trace = storage.getStore();
    if (trace) {
      const waiting = unanswered.get(this) ?? 0;
      if (waiting === 0) trace.trips += 1;
      if (result instanceof Promise) {
        unanswered.set(this, waiting + 1);
        const answered = () => void unanswered.set(this, (unanswered.get(this) ?? 1) - 1);
        result.then(answered, answered);
      }
      if (!trace.connections.has(this)) trace.connections.set(this, trace.connections.size + 1);
      for (const statement of statementsOf(args)) record(trace, this, statement);
    }
  }
  return result;
};

interface SentStatement {
  text: string;
  values: unknown;
  named: boolean;
}

/** The statement of one Client#query call (a text, or a query config, named when prepared). */
function statementsOf(args: unknown[]): SentStatement[] {
  const first = args[0] as
    string | { text?: string; values?: unknown; name?: string; statements?: Array<{ text: string; values?: unknown; name?: string }> } | undefined;
  if (typeof first === 'object' && Array.isArray(first?.statements)) {
    return first.statements.map((s) => ({ text: s.text, values: s.values, named: Boolean(s.name) }));
  }
  if (typeof first === 'string') return [{ text: first, values: args[1], named: false }];
  return [{ text: first?.text ?? '', values: first?.values, named: Boolean(first?.name) }];
}

const LOCK_STATEMENT = /^select set_config\('lock_timeout'/;

function record(trace: RequestTrace, client: Client, { text, values, named }: SentStatement): void {
  const previous = trace.statements[trace.statements.length - 1];
  if (LOCK_STATEMENT.test(text) && previous && /^begin$/i.test(previous.sql)) {
    // A call's locks are part of its BEGIN, as when both went in one text: one B, as (a) runs it.
    previous.sql = `${previous.sql}; ${text}`.replace(/\s+/g, ' ').slice(0, 160);
    return;
  }
  const kind = statementKind(text);
  trace.kinds.push(kind);
  if (kind === KIND_LETTERS.select) trace.reads.push({ text, values: encodeValues(values), named });
  trace.statements.push({ connection: trace.connections.get(client) as number, sql: text.replace(/\s+/g, ' ').slice(0, 160) });
}

// The channel must not keep a server alive whose bench has gone.
process.channel?.unref();
process.on('message', (message: { probe?: string }) => {
  if (message?.probe === 'start') {
    completed = [];
    enabled = true;
    process.send?.({ probe: 'started' });
  } else if (message?.probe === 'stop') {
    enabled = false;
    const report: ProbeReport = { probe: 'report', requests: completed };
    completed = [];
    process.send?.(report);
  }
});
