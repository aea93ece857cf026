/** The bench's outputs: bench/results/latest.json (everything) and latest.md (the table). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LoadFigures, round } from './load';
import { floorsSection } from './floors';
import { describePlan } from './sql-plan';
import type { WebhookFigures } from './webhook-delivery';

export interface ScenarioResult {
  name: string;
  description: string;
  status: 'measured' | 'skipped';
  reason?: string;
  service?: LoadFigures;
  /** Statements per request measured by the SQL probe during calibration. */
  sql?: {
    plan: string;
    statementsPerRequest: number;
    /** Round trips to the database per request (statements sent together count once). */
    roundTripsPerRequest?: number;
    /** Most pg connections one request used at once or in turn (1 means all on one session). */
    connectionsPerRequest: number;
    calibrationRequests: number;
    calibrationFailures: number;
    /** The first calibration request's statements: pg connection number and SQL text (truncated). */
    firstRequest?: Array<{ connection: number; sql: string }>;
    /** Calibration requests whose reads baseline (a) runs in turn (0: its selects are trivial). */
    readsRecorded?: number;
  };
  /** Baseline (a): the same plan with `pg`, its selects the service's own reads when recorded. */
  baselinePg?: LoadFigures;
  /** Baseline (a′), beside an (a) with recorded reads: the same plan with trivial selects, as (a) was before. */
  baselinePgTrivial?: LoadFigures;
  baselineConstant?: LoadFigures;
  ratioPg?: number;
  ratioPgTrivial?: number;
  ratioConstant?: number;
  /**
   * Token only, measured in turns with (b): the constant route plus one ES256 signature
   * (handwritten-token.ts's SignOnce), the fastest any route that signs each token can answer
   * here; `ceilingOfConstant` is its req/s over (b)'s, `ratioCeiling` the service's over its (the
   * token's floor is read on that one).
   */
  ceiling?: LoadFigures;
  ceilingOfConstant?: number;
  ratioCeiling?: number;
  /**
   * Baseline (c): the scenario's essential work by hand on a bare Fastify route (token, enrollment,
   * replay and user-update scenarios): handwritten-token.ts, handwritten-enrollment.ts,
   * handwritten-replay.ts, handwritten-user-update.ts.
   */
  handwritten?: {
    figures: LoadFigures;
    /** Enrollment only: counted by the baseline server over the measured run (warm-up included). */
    statementsPerRequest?: number;
    commitsPerRequest?: number;
    /** What one request of (c) does, in order (for the enrollment: its round trips). */
    statements: string[];
  };
  ratioHandwritten?: number;
  /** The webhooks scenario (webhook-delivery.ts): `service` is its enrollment load. */
  webhooks?: WebhookFigures;
}

export interface BenchRun {
  startedAt: string;
  finishedAt: string;
  settings: { connections: number; durationSeconds: number; warmupSeconds: number; rounds?: number; logLevel: string; database: string };
  machine: { node: string; cpus: number; cpuModel: string; loadAverageAtStart: number[] };
  method: string;
  scenarios: ScenarioResult[];
}

export const METHOD_NOTE =
  'Service: `node dist/src/main.js` (production build, LOG_LEVEL=info to bench/results/server.log) on the embedded PostgreSQL, ' +
  'driven over loopback by autocannon. SQL per request: the service runs with a preloaded probe (bench/sql-probe.ts) that ' +
  "counts pg `Client#query` calls issued inside each HTTP request's async context (AsyncLocalStorage), during a short " +
  'sequential calibration before the load (the probe is idle while measuring), and records the text and values of each ' +
  "request's selects. Baseline (a), pg-only with the same reads: a bare Fastify route that replays the same statement " +
  "sequence with `pg` against the same database, pool of the same size, kept while idle: its selects are the service's own, recorded " +
  'during calibration (same text and values, prepared where the service prepares them, taken in turn from the ' +
  'calibration requests; a row-lock clause dropped, since (a) cycles through those few rows), its other statements ' +
  'trivial ones of their kind (BEGIN/COMMIT, INSERT and UPDATE by key on a table of its own). Baseline (a′), beside such ' +
  'an (a): the same sequence with trivial selects too (SELECT by key), the definition of (a) before 2026-11-23. ' +
  'Baseline (b): the same Fastify route answering a constant. The baselines receive the same ' +
  "method, headers and body as the scenario. Baseline (c), the scenario's essential work by hand, measured right after the " +
  'service at the same connections and duration (token: bench/handwritten-token.ts, the Basic client check and an ES256 ' +
  "RFC 9068 token; replay: bench/handwritten-replay.ts, the canonical fingerprint, the service's stored-answer read on its " +
  "own rows, the answer decrypted with its keys; user update: bench/handwritten-user-update.ts, on the service's rows: " +
  "BEGIN with the account's and user's advisory locks, the account locked with the user and its address's id, address and " +
  "email encrypted with the service's keys, address, user and outbox event in one writable CTE, COMMIT; enrollment, below): " +
  'for the enrollment, a bare Fastify route in the ' +
  'baseline server doing a new consumer enrollment by hand with `pg` ' +
  "on the service's own tables (its migrations, in the baseline's schema), in one transaction on one pooled connection: " +
  'advisory xact locks in one statement, idempotency row, all limit counts in one statement, account in its final state ' +
  'with purse and limit keys, user with addresses and phones, card with outbox events (writable CTEs, multi-row inserts), ' +
  'the stored answer built in memory; AES-256-GCM field encryption and HMAC blind indexes as the service does. It does ' +
  "not verify the bearer token or run the DTO validation (nor do the replay's and the user update's). Ratio = service req/s ÷ baseline req/s.";

function ms(value: number | undefined): string {
  return value === undefined ? '-' : String(round(value, 1));
}

function pct(ratio: number | undefined): string {
  // One decimal: a ratio a point from its floor must not read as on it.
  return ratio === undefined ? '-' : `${(ratio * 100).toFixed(1)}%`;
}

export function markdownTable(run: BenchRun): string {
  const header =
    '| scenario | req/s | p50 ms | p99 ms | p99 once connected ms | errors | SQL/req | (a) same reads req/s | vs (a) | (a′) trivial SQL req/s | vs (a′) | (b) constant req/s | vs (b) | (c) hand-written req/s | vs (c) |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const rows = run.scenarios.map((s) => {
    if (s.status === 'skipped') return `| ${s.name} | skipped (${s.reason}) | | | | | | | | | | | | | |`;
    const svc = s.service as LoadFigures;
    return (
      `| ${s.name} | ${svc.requestsPerSecond} | ${ms(svc.p50Ms)} | ${ms(svc.p99Ms)} | ${ms(svc.steadyP99Ms)} | ${svc.errors} | ${s.sql?.statementsPerRequest ?? '-'} | ` +
      `${s.baselinePg?.requestsPerSecond ?? '-'} | ${pct(s.ratioPg)} | ${s.baselinePgTrivial?.requestsPerSecond ?? '-'} | ${pct(s.ratioPgTrivial)} | ` +
      `${s.baselineConstant?.requestsPerSecond ?? '-'} | ${pct(s.ratioConstant)} | ` +
      `${s.handwritten?.figures.requestsPerSecond ?? '-'} | ${pct(s.ratioHandwritten)} |`
    );
  });
  return [header, ...rows].join('\n');
}

/** A run's CPU split, "server / PostgreSQL / load generator = sum (machine busy %)", or '-' without one. */
export function cpuCell(figures: LoadFigures | undefined): string {
  const cpu = figures?.cpu;
  return cpu ? `${cpu.server} / ${cpu.database} / ${cpu.loadGenerator} = ${cpu.server + cpu.database + cpu.loadGenerator} (${cpu.machineBusyPercent}%)` : '-';
}

/**
 * CPU µs per request by process (server / PostgreSQL / load generator = sum, and how busy the
 * machine was): with the machine saturated, a throughput ratio is the inverse ratio of the sums.
 */
export function cpuTable(run: BenchRun): string {
  const measured = run.scenarios.filter((s) => s.status === 'measured' && s.service?.cpu);
  if (!measured.length) return '';
  const header = '| scenario | service | (a) same reads | (a′) trivial SQL | (b) constant | (c) hand-written |\n' + '|---|---:|---:|---:|---:|---:|';
  const rows = measured.map(
    (s) =>
      `| ${s.name} | ${cpuCell(s.service)} | ${cpuCell(s.baselinePg)} | ${cpuCell(s.baselinePgTrivial)} | ${cpuCell(s.baselineConstant)} | ${cpuCell(s.handwritten?.figures)} |`,
  );
  return [header, ...rows].join('\n');
}

export function markdownReport(run: BenchRun): string {
  const cpu = cpuTable(run);
  const floors = floorsSection(run.scenarios);
  const plans = run.scenarios
    .filter((s) => s.sql)
    .map(
      (s) =>
        `- ${s.name}: ${s.sql?.statementsPerRequest} statements` +
        (s.sql?.roundTripsPerRequest !== undefined ? ` in ${s.sql.roundTripsPerRequest} round trip(s)` : '') +
        ` on ${s.sql?.connectionsPerRequest} connection(s): ${describePlan(s.sql?.plan ?? '')}` +
        (s.sql?.readsRecorded ? `; (a) runs the reads of ${s.sql.readsRecorded} calibration requests in turn` : ''),
    );
  const handwritten = run.scenarios
    .filter((s) => s.handwritten)
    .map((s) => {
      const c = s.handwritten as NonNullable<ScenarioResult['handwritten']>;
      return (
        `Baseline (c) for ${s.name}: ${c.figures.requestsPerSecond} req/s, p50 ${ms(c.figures.p50Ms)} ms, p99 ${ms(c.figures.p99Ms)} ms (${ms(c.figures.steadyP99Ms)} once connected), ` +
        `errors ${c.figures.errors}; ` +
        (c.statementsPerRequest === undefined ? 'per request: ' : `${c.statementsPerRequest} statements and ${c.commitsPerRequest} commit(s) per request: `) +
        `${c.statements.join('; ')}.`
      );
    });
  const ceilings = run.scenarios
    .filter((s) => s.ceiling)
    .map((s) => {
      const ceiling = s.ceiling as LoadFigures;
      return (
        `Ceiling for ${s.name}: (b) plus one ES256 signature (WebCrypto, as the service signs), in turns with (b): ` +
        `${ceiling.requestsPerSecond} req/s, ${pct(s.ceilingOfConstant)} of (b), errors ${ceiling.errors}; the service ${pct(s.ratioCeiling)} of it. ` +
        'Every token is signed (CONTRACT section 3), so no token route answers faster here.'
      );
    });
  const webhooks = run.scenarios
    .filter((s) => s.webhooks)
    .map((s) => {
      const w = s.webhooks as NonNullable<ScenarioResult['webhooks']>;
      return (
        `Webhooks (its row is the enrollment load it ran under): ${w.deliveredPerSecondDuringLoad} events/s delivered while enrollments ran, ` +
        `lag from occurredDateTime to receipt p50 ${w.lagP50Ms} ms, p99 ${w.lagP99Ms} ms, max ${w.lagMaxMs} ms; ${w.backlogAtEnd} events pending when the load stopped, ` +
        `drained in ${w.drainMs} ms; a burst of ${w.burst.events} due events delivered in ${w.burst.seconds} s (${w.burst.perSecond} events/s).`
      );
    });
  return [
    `# Bench results`,
    '',
    `${run.settings.connections} connections, ${run.settings.durationSeconds} s per run after ${run.settings.warmupSeconds} s warm-up` +
      (run.settings.rounds && run.settings.rounds > 1
        ? `, in ${run.settings.rounds} parts taking turns with the baselines (a), (a′) and (b) (p99: the higher part's; "once connected": of the requests sent after every connection of the part had its first answer, bench/README.md "The connection ramp"); `
        : '; ') +
      `Node ${run.machine.node}, ${run.machine.cpus} CPU (${run.machine.cpuModel}), load average at start ${run.machine.loadAverageAtStart.join(' ')}; ${run.finishedAt}.`,
    '',
    markdownTable(run),
    '',
    'Errors = non-2xx + connection errors/timeouts + 2xx answers that were not a success (code 0).',
    '',
    ...(floors ? [floors, ''] : []),
    ...(cpu
      ? [
          "CPU µs per request by process during each measured run (bench/cpu-split.ts): server / PostgreSQL / load generator = sum (machine busy, % of all cores). The three share the machine's cores, so where the machine is saturated a ratio of two servers' req/s is the inverse ratio of these sums.",
          '',
          cpu,
          '',
        ]
      : []),
    'SQL per request (dominant sequence during calibration; B begin, C commit, S select, I insert, U update, D delete, O other):',
    ...plans,
    '',
    ...(handwritten.length ? [...handwritten, ''] : []),
    ...(ceilings.length ? [...ceilings, ''] : []),
    ...(webhooks.length ? [...webhooks, ''] : []),
    METHOD_NOTE,
    '',
  ].join('\n');
}

export function writeResults(dir: string, run: BenchRun): { json: string; md: string } {
  fs.mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'latest.json');
  const md = path.join(dir, 'latest.md');
  fs.writeFileSync(json, `${JSON.stringify(run, null, 2)}\n`);
  fs.writeFileSync(md, markdownReport(run));
  return { json, md };
}

export function machineInfo(): BenchRun['machine'] {
  const cpus = os.cpus();
  return { node: process.version, cpus: cpus.length, cpuModel: cpus[0]?.model ?? 'unknown', loadAverageAtStart: os.loadavg().map((v) => round(v, 2)) };
}
