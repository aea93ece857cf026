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
  const trace: RequestTrace = { method: req.method ?? '', url: req.url ?? '', kinds: [], statements: [], reads: [], connections: new Map() };
  res.once('finish', () => {
    if (!enabled) return;
    // Statement texts only for the first request of a calibration: enough to read the plan.
    const statements = completed.length === 0 ? trace.statements : undefined;
    completed.push({
      method: trace.method,
      path: trace.url,
      status: res.statusCode,
      plan: trace.kinds.join(''),
      connections: trace.connections.size,
      statements,
      reads: trace.reads,
    });
  });
  return storage.run(trace, () => originalEmit.call(this, event, ...args));
} as typeof http.Server.prototype.emit;

// pg's Pool and TypeORM both end in Client#query: one patch sees every statement.
const originalQuery = Client.prototype.query as (...args: unknown[]) => unknown;
(Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function query(this: Client, ...args: unknown[]) {
  if (enabled) {
    const trace = storage.getStore();
    if (trace) {
      const first = args[0] as string | { text?: string; values?: unknown; name?: string } | undefined;
      const sql = typeof first === 'string' ? first : (first?.text ?? '');
      const kind = statementKind(sql);
      trace.kinds.push(kind);
      if (kind === KIND_LETTERS.select) {
        const values = typeof first === 'string' ? args[1] : first?.values;
        trace.reads.push({ text: sql, values: encodeValues(values), named: typeof first === 'object' && Boolean(first?.name) });
      }
      if (!trace.connections.has(this)) trace.connections.set(this, trace.connections.size + 1);
      trace.statements.push({ connection: trace.connections.get(this) as number, sql: sql.replace(/\s+/g, ' ').slice(0, 160) });
    }
  }
  return originalQuery.apply(this, args);
};

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
