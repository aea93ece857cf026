/**
 * `npm run bench`: the service from dist on the embedded PostgreSQL, five scenarios at 50
 * connections, each against two baselines measured in the same run, and the enrollment scenario
 * also against a hand-written enrollment in one transaction, baseline (c) (see report.ts METHOD_NOTE).
 * Settings (env): BENCH_DURATION (s, 10), BENCH_WARMUP (s, 5: the first seconds of a fresh process measure V8 compiling the code, not the code), BENCH_CONNECTIONS (50),
 * BENCH_ROUNDS (2: each measurement is split into this many parts, the service's and its baselines'
 * taking turns, so that a drift of this shared machine's speed weighs on both sides alike),
 * BENCH_SCENARIOS (comma list), BENCH_BASELINES=0 (skip them), BENCH_CPU_PROF=1 (profile the
 * service), BENCH_OUT (results folder, bench/results), BENCH_KEEP=1 (keep the work folder, and the schema on a DATABASE_URL).
 * BENCH_SCENARIOS=webhooks runs only the webhook delivery scenario (bench/webhook-delivery.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HANDWRITTEN_STATEMENTS, HandwrittenStats } from './handwritten-enrollment';
import { HANDWRITTEN_REPLAY_WORK } from './handwritten-replay';
import { HANDWRITTEN_TOKEN_WORK } from './handwritten-token';
import { HANDWRITTEN_USER_UPDATE_WORK } from './handwritten-user-update';
import { combine, drive, LoadFigures, LoadOptions, round } from './load';
import { BaselineProcess, ROOT, ServiceProcess, startBaseline, startService } from './processes';
import { formatSummary, summariseProfile } from './profile-summary';
import { BenchRun, cpuCell, machineInfo, markdownTable, METHOD_NOTE, ScenarioResult, writeResults } from './report';
import { enrolledFrom } from './requests';
import { BenchRequest, buildScenarios, Scenario, ScenarioContext, seedAccounts, sendRequest } from './scenarios';
import { dominantPlan, RecordedRead } from './sql-plan';
import { ProbeReport } from './sql-probe';
import { runWebhookScenario, WEBHOOKS_SCENARIO } from './webhook-delivery';
import { BENCH_PARTNER, BENCH_PARTNER_SCOPES, benchPartnerToken, BENCH_PROGRAM, createWorkspace, loadSettings, Workspace } from './workspace';

const settings = {
  ...loadSettings(),
  baselines: process.env.BENCH_BASELINES !== '0',
  cpuProfile: process.env.BENCH_CPU_PROF === '1',
};
const CALIBRATION_REQUESTS = 20;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function send(service: ServiceProcess, request: BenchRequest): Promise<{ status: number; text: string }> {
  return sendRequest(service.baseUrl, request);
}

/** A route that does not exist answers the catalogue's ROUTE_NOT_FOUND (404, code 404). */
function routeMissing(status: number, text: string): boolean {
  return status === 404 && /"code":\s*404/.test(text);
}

async function calibrate(
  service: ServiceProcess,
  scenario: Scenario,
): Promise<ScenarioResult['sql'] & { sample: { status: number; text: string }; reads: RecordedRead[][] }> {
  await service.ask({ probe: 'start' }, 'started');
  let failures = 0;
  let sample = { status: 0, text: '' };
  for (let i = 0; i < CALIBRATION_REQUESTS; i += 1) {
    const request = scenario.next();
    const answer = await send(service, request);
    if (!scenario.accept(answer.status, answer.text, request)) {
      failures += 1;
      sample = answer;
    }
  }
  const report = await service.ask<ProbeReport>({ probe: 'stop' }, 'report');
  const plans = report.requests.map((r) => r.plan);
  const total = plans.reduce((sum, plan) => sum + plan.length, 0);
  const plan = dominantPlan(plans);
  return {
    plan,
    statementsPerRequest: plans.length ? round(total / plans.length, 1) : 0,
    roundTripsPerRequest: plans.length ? round(report.requests.reduce((sum, r) => sum + r.trips, 0) / plans.length, 1) : 0,
    connectionsPerRequest: Math.max(0, ...report.requests.map((r) => r.connections)),
    firstRequest: report.requests[0]?.statements,
    calibrationRequests: plans.length,
    calibrationFailures: failures,
    sample,
    // The reads of the successful requests that ran the dominant plan: what (a) runs as its selects.
    reads: report.requests.filter((r) => r.status === 200 && r.plan === plan && r.reads.length > 0).map((r) => r.reads),
  };
}

/** Registers a scenario's recorded reads with the baseline server; the name to ask (a) for them, or undefined for none. */
async function registerReads(baseline: BaselineProcess, name: string, reads: RecordedRead[][]): Promise<string | undefined> {
  if (reads.length === 0) return undefined;
  const response = await fetch(`${baseline.baseUrl}/sql-reads/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(reads),
  });
  if (!response.ok) throw new Error(`baseline refused the recorded reads of ${name}: ${response.status} ${await response.text()}`);
  return name;
}

/**
 * Drives the scenario's requests at baseUrl (to `route` when given: a path instead of the
 * scenario's, or a prefix to it). Answers are judged by the scenario itself against the service, by
 * `accept` when given, and not at all for (a) and (b).
 */
async function measure(
  target: { baseUrl: string; pid: number | undefined },
  scenario: Scenario,
  route?: string | { prefix: string },
  accept?: LoadOptions['accept'],
  part: { warm: boolean; seconds: number } = { warm: true, seconds: settings.durationSeconds },
  afterWarmup?: () => Promise<void>,
): Promise<LoadFigures> {
  const common = {
    baseUrl: target.baseUrl,
    serverPid: target.pid,
    connections: settings.connections,
    next: () => scenario.next(),
    ...(typeof route === 'string' ? { pathOverride: route } : { pathPrefix: route?.prefix }),
  };
  if (part.warm && settings.warmupSeconds > 0) {
    await drive({ ...common, durationSeconds: settings.warmupSeconds });
    await afterWarmup?.();
  }
  return drive({ ...common, durationSeconds: part.seconds, accept: accept ?? (route ? undefined : (s, t, r) => scenario.accept(s, t, r)) });
}

/**
 * The service and its baselines, each for BENCH_DURATION in all, taking turns in BENCH_ROUNDS
 * parts (each warmed up before its first part only), combined per target: (a) with the service's
 * own reads when `reads` names them, (a′) with trivial selects (only beside such an (a)), (b), and
 * for the token scenario the ceiling beside (b): the constant route plus one ES256 signature.
 */
async function measureInTurns(
  service: ServiceProcess,
  baseline: BaselineProcess | undefined,
  scenario: Scenario,
  plan: string,
  reads: string | undefined,
  afterWarmup: () => Promise<void>,
): Promise<{ service: LoadFigures; pg?: LoadFigures; pgTrivial?: LoadFigures; constant?: LoadFigures; ceiling?: LoadFigures }> {
  const sqlPath = `/sql/${plan || '-'}`;
  const targets: Array<{
    target: { baseUrl: string; pid: number | undefined };
    pathOverride?: string;
    name: 'service' | 'pg' | 'pgTrivial' | 'constant' | 'ceiling';
  }> = [
    { name: 'service', target: { baseUrl: service.baseUrl, pid: service.child.pid } },
    ...(baseline
      ? [
          { name: 'pg' as const, target: baseline, pathOverride: reads ? `${sqlPath}?reads=${reads}` : sqlPath },
          ...(reads ? [{ name: 'pgTrivial' as const, target: baseline, pathOverride: sqlPath }] : []),
          { name: 'constant' as const, target: baseline, pathOverride: '/const' },
          ...(scenario.name === 'token' ? [{ name: 'ceiling' as const, target: baseline, pathOverride: '/const-signed' }] : []),
        ]
      : []),
  ];
  const parts = targets.map((): LoadFigures[] => []);
  for (let turn = 0; turn < settings.rounds; turn++) {
    const part = { warm: turn === 0, seconds: settings.durationSeconds / settings.rounds };
    for (const [i, { target, pathOverride, name }] of targets.entries()) {
      const figures = await measure(target, scenario, pathOverride, undefined, part, afterWarmup);
      parts[i]?.push(figures);
      // Each part on its own: how far the machine moved the figures within the run (bench/README.md, "Turns").
      log(
        `  ${scenario.name}: turn ${turn + 1}/${settings.rounds}, ${name}: ${figures.requestsPerSecond} req/s, p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (${figures.steadyP99Ms ?? '-'} once connected, in ${figures.connectionsUpMs ?? '-'} ms), CPU µs per request ${cpuCell(figures)}`,
      );
    }
  }
  const combined = Object.fromEntries(targets.map(({ name }, i) => [name, combine(parts[i] ?? [])]));
  return { ...combined, service: combined.service as LoadFigures };
}

async function handwrittenStats(baseline: BaselineProcess): Promise<HandwrittenStats> {
  return (await (await fetch(`${baseline.baseUrl}/handwritten/stats`)).json()) as HandwrittenStats;
}

/** Baseline (c)'s route and what one request of it does, for the scenarios that have one. */
const HANDWRITTEN: Record<string, { path: string | { prefix: string }; work: readonly string[] }> = {
  token: { path: '/handwritten/oauth2/token', work: HANDWRITTEN_TOKEN_WORK },
  enrollment: { path: `/handwritten/v1/programs/${BENCH_PROGRAM}/enrollments`, work: HANDWRITTEN_STATEMENTS },
  replay: { path: `/handwritten/replay/v1/programs/${BENCH_PROGRAM}/enrollments`, work: HANDWRITTEN_REPLAY_WORK },
  // The scenario's own path (its account and user), under the route's prefix.
  'user-update': { path: { prefix: '/handwritten/user-update' }, work: HANDWRITTEN_USER_UPDATE_WORK },
};

/**
 * Baseline (c), right after the service's run, same connections and duration: the scenario's
 * essential work by hand on a bare route. Its answers are judged like the service's; an
 * enrollment's are never recorded as seed accounts, since they live in the baseline's schema, and
 * only the enrollment's (c) counts its statements.
 */
async function measureHandwritten(baseline: BaselineProcess, scenario: Scenario, afterWarmup: () => Promise<void>): Promise<ScenarioResult['handwritten']> {
  const route = HANDWRITTEN[scenario.name];
  if (!route) return undefined;
  const enrollment = scenario.name === 'enrollment';
  const before = enrollment ? await handwrittenStats(baseline) : undefined;
  const figures = await measure(
    baseline,
    scenario,
    route.path,
    enrollment
      ? (status, text, request) => enrolledFrom(status, text, request.body ?? '') !== undefined
      : (status, text, request) => scenario.accept(status, text, request),
    undefined,
    afterWarmup,
  );
  if (!before) return { figures, statements: [...route.work] };
  const after = await handwrittenStats(baseline);
  const requests = after.requests - before.requests;
  return {
    figures,
    statementsPerRequest: requests ? round((after.statements - before.statements) / requests, 1) : 0,
    commitsPerRequest: requests ? round((after.commits - before.commits) / requests, 2) : 0,
    statements: [...route.work],
  };
}

/**
 * ANALYZE, as autovacuum does in a service that has been running: the bench fills its tables from
 * empty within seconds, before autovacuum's first pass (autovacuum_naptime, a minute). Run before
 * calibration and again after each target's warm-up: a plan cached while a table was nearly empty
 * (a prepared statement's generic plan, a foreign key check's) is a sequential scan, and it stays in
 * each pooled session until statistics change; without the second pass the enrollment's batch read
 * the whole accounts and users tables in its key checks (about twice the blocks per statement of
 * the same inserts a minute later). The index choice from empty statistics is the same story (the
 * partner and program index, which matches every bench account, instead of the primary key).
 */
async function refreshStatistics(workspace: Workspace): Promise<void> {
  const db = await workspace.db();
  try {
    await db.query('analyze');
  } finally {
    await db.end();
  }
}

async function runScenario(
  workspace: Workspace,
  service: ServiceProcess,
  baseline: BaselineProcess | undefined,
  scenario: Scenario,
  context: ScenarioContext,
  all: Scenario[],
): Promise<ScenarioResult> {
  const result: ScenarioResult = { name: scenario.name, description: scenario.description, status: 'skipped' };
  const enrollment = all.find((s) => s.name === 'enrollment') as Scenario;
  if (scenario.blocked()) {
    const probe = await send(service, enrollment.next());
    if (routeMissing(probe.status, probe.text)) return { ...result, reason: 'endpoint missing: POST enrollments, needed for seed accounts' };
    await seedAccounts(service.baseUrl, enrollment, context);
    if (scenario.blocked()) return { ...result, reason: scenario.blocked() };
  }
  const probe = await send(service, scenario.next());
  if (routeMissing(probe.status, probe.text)) return { ...result, reason: 'endpoint missing' };
  await refreshStatistics(workspace);
  const { sample, reads, ...sql } = await calibrate(service, scenario);
  if (sql.calibrationFailures > 0)
    log(`  ${scenario.name}: ${sql.calibrationFailures} calibration answers were not a success, e.g. ${sample.status} ${sample.text.slice(0, 300)}`);
  log(
    `  ${scenario.name}: ${sql.statementsPerRequest} SQL statements (${sql.roundTripsPerRequest} round trips) on ${sql.connectionsPerRequest} connection(s) per request (${sql.plan || 'none'})`,
  );
  const readsName = baseline ? await registerReads(baseline, scenario.name, reads) : undefined;
  const statistics = () => refreshStatistics(workspace);
  const turns = await measureInTurns(service, baseline, scenario, sql.plan, readsName, statistics);
  const serviceFigures = turns.service;
  log(
    `  ${scenario.name}: ${serviceFigures.requestsPerSecond} req/s, p50 ${serviceFigures.p50Ms} ms, p99 ${serviceFigures.p99Ms} ms (${serviceFigures.steadyP99Ms ?? '-'} once connected), errors ${serviceFigures.errors} ${JSON.stringify(serviceFigures.statusCodes)}`,
  );
  const measured: ScenarioResult = { ...result, status: 'measured', service: serviceFigures, sql: { ...sql, readsRecorded: readsName ? reads.length : 0 } };
  const { pg, pgTrivial, constant, ceiling } = turns;
  if (!baseline || !pg || !constant) return measured;
  log(
    `  ${scenario.name}: baseline (a) ${pg.requestsPerSecond} req/s${pgTrivial ? `, (a′) ${pgTrivial.requestsPerSecond} req/s` : ''}, (b) ${constant.requestsPerSecond} req/s`,
  );
  const withBaselines: ScenarioResult = {
    ...measured,
    baselinePg: pg,
    baselineConstant: constant,
    ratioPg: round(serviceFigures.requestsPerSecond / pg.requestsPerSecond, 3),
    ratioConstant: round(serviceFigures.requestsPerSecond / constant.requestsPerSecond, 3),
    ...(pgTrivial ? { baselinePgTrivial: pgTrivial, ratioPgTrivial: round(serviceFigures.requestsPerSecond / pgTrivial.requestsPerSecond, 3) } : {}),
    ...(ceiling
      ? {
          ceiling,
          ceilingOfConstant: round(ceiling.requestsPerSecond / constant.requestsPerSecond, 3),
          ratioCeiling: round(serviceFigures.requestsPerSecond / ceiling.requestsPerSecond, 3),
        }
      : {}),
  };
  if (ceiling) log(`  ${scenario.name}: ceiling, (b) plus one ES256 signature, ${ceiling.requestsPerSecond} req/s, ${withBaselines.ceilingOfConstant} of (b)`);
  const handwritten = await measureHandwritten(baseline, scenario, statistics);
  if (!handwritten) return withBaselines;
  const c = handwritten.figures;
  log(
    `  ${scenario.name}: baseline (c) ${c.requestsPerSecond} req/s, p50 ${c.p50Ms} ms, p99 ${c.p99Ms} ms, errors ${c.errors} ${JSON.stringify(c.statusCodes)}` +
      (handwritten.statementsPerRequest === undefined
        ? ''
        : `, ${handwritten.statementsPerRequest} statements and ${handwritten.commitsPerRequest} commit(s) per request`),
  );
  return { ...withBaselines, handwritten, ratioHandwritten: round(serviceFigures.requestsPerSecond / c.requestsPerSecond, 3) };
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  fs.mkdirSync(settings.out, { recursive: true });
  const serverLog = path.join(settings.out, 'server.log');
  fs.rmSync(serverLog, { force: true });
  log(
    `bench: ${settings.connections} connections, ${settings.durationSeconds} s per run (+${settings.warmupSeconds} s warm-up), in ${settings.rounds} turns with the baselines`,
  );
  const workspace = await createWorkspace({ label: 'bench', keep: settings.keep });
  let service: ServiceProcess | undefined;
  let baseline: BaselineProcess | undefined;
  const profileDir = path.join(settings.out, 'profile');
  try {
    if (settings.cpuProfile) fs.rmSync(profileDir, { recursive: true, force: true });
    service = await startService({
      env: workspace.serviceEnv({ LOG_LEVEL: 'info', NODE_ENV: 'production' }),
      logFile: serverLog,
      probe: true,
      cpuProfDir: settings.cpuProfile ? profileDir : undefined,
    });
    if (settings.baselines) {
      baseline = await startBaseline(
        {
          DATABASE_URL: workspace.databaseUrl,
          BENCH_BASELINE_SCHEMA: `bench_baseline_${process.pid}`,
          BENCH_SERVICE_SCHEMA: workspace.schema,
          DB_POOL_SIZE: '20',
          BENCH_PARTNER_ID: BENCH_PARTNER.clientId,
          BENCH_PARTNER_SECRET: BENCH_PARTNER.clientSecret,
          BENCH_PARTNER_SCOPE: BENCH_PARTNER_SCOPES.join(' '),
          // The replay's (c) decrypts the service's stored answers with the service's sandbox keys.
          BENCH_SERVICE_DATA_DIR: workspace.dir,
        },
        path.join(settings.out, 'baseline.log'),
      );
    }
    const context: ScenarioContext = { token: await benchPartnerToken(service.baseUrl), enrolled: [] };
    const all = buildScenarios(context);
    const selected = settings.scenarios ? all.filter((s) => settings.scenarios?.includes(s.name)) : all;
    const results: ScenarioResult[] = [];
    for (const scenario of selected) {
      log(`scenario ${scenario.name}: ${scenario.description}`);
      const result = await runScenario(workspace, service, baseline, scenario, context, all);
      if (result.status === 'skipped') log(`  skipped: ${result.reason}`);
      results.push(result);
    }
    if (!settings.scenarios || settings.scenarios.includes(WEBHOOKS_SCENARIO)) {
      log(`scenario ${WEBHOOKS_SCENARIO}: webhook delivery while enrollments run, then a burst (own service with a webhook receiver)`);
      const result = await runWebhookScenario(settings);
      const w = result.webhooks;
      if (w) {
        log(
          `  ${WEBHOOKS_SCENARIO}: ${w.deliveredPerSecondDuringLoad} events/s delivered during ${result.service?.requestsPerSecond} enrollments/s; lag p50 ${w.lagP50Ms} ms, p99 ${w.lagP99Ms} ms, max ${w.lagMaxMs} ms; backlog ${w.backlogAtEnd} drained in ${w.drainMs} ms`,
        );
        log(`  ${WEBHOOKS_SCENARIO}: burst of ${w.burst.events} events delivered in ${w.burst.seconds} s: ${w.burst.perSecond} events/s`);
      }
      results.push(result);
    }
    const run: BenchRun = {
      startedAt,
      finishedAt: new Date().toISOString(),
      settings: {
        connections: settings.connections,
        durationSeconds: settings.durationSeconds,
        warmupSeconds: settings.warmupSeconds,
        rounds: settings.rounds,
        logLevel: 'info',
        database: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL',
      },
      machine,
      method: METHOD_NOTE,
      scenarios: results,
    };
    const files = writeResults(settings.out, run);
    log('');
    log(markdownTable(run));
    log('');
    log(`written: ${path.relative(ROOT, files.json)}, ${path.relative(ROOT, files.md)}`);
  } finally {
    await service?.stop();
    await baseline?.stop();
    await workspace.dispose();
  }
  if (settings.cpuProfile) {
    const profiles = fs.existsSync(profileDir) ? fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile')) : [];
    for (const file of profiles) {
      log(`\nprofile ${path.relative(ROOT, path.join(profileDir, file))}`);
      log(formatSummary(summariseProfile(path.join(profileDir, file), 30)));
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
