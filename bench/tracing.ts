/**
 * `npm run bench:tracing`: what OpenTelemetry costs (issue 38's speed rule). Three processes of the
 * same build on one database, driven in turns by the bench's load (BENCH_ROUNDS parts each, the
 * order rotated every turn so no variant always runs first):
 * - `plain`: `node dist/src/main.js` and no OTEL_EXPORTER_OTLP_ENDPOINT (its first import, the
 *   telemetry preload, loads no SDK without one), as `npm start` and the image run by default;
 * - `sdk-off`: the same with `--require` of the preload too, as `npm start` ran until 2026-12-07: the
 *   same code since main.ts imports the preload first, an A/A pair within 3% on every scenario;
 * - `traced`: the preload and an endpoint, a local OTLP/HTTP receiver that reads and discards
 *   (protobuf, the default; OTEL_* variables of the bench's own environment are passed on): the cost
 *   per request is the difference in the service's CPU per request and latency against `plain`.
 * Settings as `npm run bench`: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_ROUNDS,
 * BENCH_SCENARIOS (default: token, enrollment, replay, get-account, user-update), BENCH_OUT, BENCH_KEEP.
 * Output: bench/results/tracing.json and tracing.md.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { combine, drive, LoadFigures, round } from './load';
import { freePort, ROOT, ServiceProcess, startService } from './processes';
import { machineInfo } from './report';
import { buildScenarios, Scenario, ScenarioContext, seedAccounts, sendRequest } from './scenarios';
import { benchPartnerToken, createWorkspace, loadSettings } from './workspace';

const settings = loadSettings();
/** Within this share of `plain`'s req/s, the SDK switched off costs nothing measurable (issue 38). */
const OFF_TOLERANCE = 0.03;

type VariantName = 'plain' | 'sdk-off' | 'traced';
const VARIANTS: readonly VariantName[] = ['plain', 'sdk-off', 'traced'];

interface VariantResult {
  figures: LoadFigures;
  /** req/s ÷ plain's req/s. */
  ratio: number;
  /** Service CPU µs per request minus plain's. */
  cpuDeltaUs?: number;
  p50DeltaMs: number;
}

interface TracingScenarioResult {
  name: string;
  status: 'measured' | 'skipped';
  reason?: string;
  variants?: Record<VariantName, VariantResult>;
  /** OTLP bytes received per request of the traced variant. */
  exportedBytesPerRequest?: number;
  sdkOffWithinTolerance?: boolean;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** An OTLP/HTTP endpoint that reads every export whole, counts its bytes and answers success (an empty message). */
async function startDiscardingReceiver(): Promise<{ endpoint: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = http.createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      const json = String(request.headers['content-type']).includes('json');
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : undefined);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function send(service: ServiceProcess, scenario: Scenario): Promise<{ status: number; text: string; ok: boolean }> {
  const request = scenario.next();
  const answer = await sendRequest(service.baseUrl, request);
  return { ...answer, ok: scenario.accept(answer.status, answer.text, request) };
}

async function runScenario(
  services: Record<VariantName, ServiceProcess>,
  scenario: Scenario,
  enrollment: Scenario,
  context: ScenarioContext,
  exported: () => number,
): Promise<TracingScenarioResult> {
  // The accounts the read and update scenarios need, enrolled through `plain` (every variant shares the database).
  if (scenario.blocked()) await seedAccounts(services.plain.baseUrl, enrollment, context);
  const blocked = scenario.blocked();
  if (blocked) return { name: scenario.name, status: 'skipped', reason: blocked };
  const parts: Record<VariantName, LoadFigures[]> = { plain: [], 'sdk-off': [], traced: [] };
  let tracedBytes = 0;
  for (let turn = 0; turn < settings.rounds; turn++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + turn) % VARIANTS.length] as VariantName);
    for (const name of order) {
      const service = services[name];
      const common = {
        baseUrl: service.baseUrl,
        serverPid: service.child.pid,
        connections: settings.connections,
        next: () => scenario.next(),
      };
      if (turn === 0 && settings.warmupSeconds > 0) await drive({ ...common, durationSeconds: settings.warmupSeconds });
      const before = exported();
      parts[name].push(await drive({ ...common, durationSeconds: settings.durationSeconds / settings.rounds, accept: (s, t, r) => scenario.accept(s, t, r) }));
      // Spans still batched when the part ends are counted in a later part: over the run it evens out.
      if (name === 'traced') tracedBytes += exported() - before;
    }
  }
  const figures = Object.fromEntries(VARIANTS.map((name) => [name, combine(parts[name])])) as Record<VariantName, LoadFigures>;
  const plain = figures.plain;
  const variants = Object.fromEntries(
    VARIANTS.map((name) => {
      const f = figures[name];
      const result: VariantResult = {
        figures: f,
        ratio: round(f.requestsPerSecond / plain.requestsPerSecond, 3),
        p50DeltaMs: round(f.p50Ms - plain.p50Ms, 2),
        ...(f.cpu && plain.cpu ? { cpuDeltaUs: f.cpu.server - plain.cpu.server } : {}),
      };
      return [name, result];
    }),
  ) as Record<VariantName, VariantResult>;
  return {
    name: scenario.name,
    status: 'measured',
    variants,
    exportedBytesPerRequest: figures.traced.requests ? Math.round(tracedBytes / figures.traced.requests) : 0,
    sdkOffWithinTolerance: variants['sdk-off'].ratio >= 1 - OFF_TOLERANCE,
  };
}

function markdown(results: TracingScenarioResult[], header: string): string {
  const rows = results.flatMap((r) =>
    r.status === 'skipped' || !r.variants
      ? [`| ${r.name} | skipped: ${r.reason ?? ''} | | | | | | |`]
      : VARIANTS.map((name) => {
          const v = r.variants?.[name] as VariantResult;
          const f = v.figures;
          return `| ${r.name} | ${name} | ${f.requestsPerSecond} | ${v.ratio} | ${f.p50Ms} / ${f.p99Ms} | ${f.cpu?.server ?? '–'} | ${name === 'plain' ? '' : `${v.cpuDeltaUs ?? '–'} µs, ${v.p50DeltaMs} ms`} | ${f.errors} |`;
        }),
  );
  const verdicts = results
    .filter((r) => r.status === 'measured')
    .map(
      (r) =>
        `- ${r.name}: sdk-off ${r.sdkOffWithinTolerance ? 'at most' : 'MORE than'} ${OFF_TOLERANCE * 100}% slower than plain (${r.variants?.['sdk-off'].ratio} of its req/s); traced costs ${r.variants?.traced.cpuDeltaUs ?? '–'} µs of service CPU and ${r.variants?.traced.p50DeltaMs} ms at p50 per request, ${r.exportedBytesPerRequest} OTLP bytes exported per request`,
    );
  return [
    header,
    '',
    '| scenario | variant | req/s | vs plain | p50 / p99 ms | service CPU µs/req | cost vs plain (CPU, p50) | errors |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...verdicts,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  fs.mkdirSync(settings.out, { recursive: true });
  log(
    `bench:tracing: plain vs sdk-off vs traced, ${settings.connections} connections, ${settings.durationSeconds} s each (+${settings.warmupSeconds} s warm-up), in ${settings.rounds} turns`,
  );
  const workspace = await createWorkspace({ label: 'bench_tracing', keep: settings.keep });
  const receiver = await startDiscardingReceiver();
  const started: ServiceProcess[] = [];
  try {
    // One PUBLIC_URL (the tokens' issuer) for the three, so that one token serves them all.
    const base = workspace.serviceEnv({ LOG_LEVEL: 'info', NODE_ENV: 'production', PUBLIC_URL: 'http://127.0.0.1' });
    const otel = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('OTEL_'))) as Record<string, string>;
    const start = async (name: VariantName) => {
      const service = await startService({
        env: name === 'traced' ? { ...base, ...otel, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } : base,
        logFile: path.join(settings.out, `tracing-${name}.log`),
        telemetryPreload: name !== 'plain',
      });
      started.push(service);
      return service;
    };
    for (const name of VARIANTS) fs.rmSync(path.join(settings.out, `tracing-${name}.log`), { force: true });
    // One at a time: three migrations of one schema at once would race.
    const services = { plain: await start('plain'), 'sdk-off': await start('sdk-off'), traced: await start('traced') };
    const context: ScenarioContext = { token: await benchPartnerToken(services.plain.baseUrl), enrolled: [] };
    const all = buildScenarios(context);
    const enrollment = all.find((s) => s.name === 'enrollment') as Scenario;
    const selected = settings.scenarios ? all.filter((s) => settings.scenarios?.includes(s.name)) : all;
    // Warm every variant's token cache and JIT alike before the first scenario (its first seconds are warm-up anyway).
    for (const service of started) if (!(await send(service, enrollment)).ok) throw new Error(`an enrollment through ${service.baseUrl} failed`);
    const results: TracingScenarioResult[] = [];
    for (const scenario of selected) {
      log(`scenario ${scenario.name}: ${scenario.description}`);
      const result = await runScenario(services, scenario, enrollment, context, receiver.bytes);
      if (result.status === 'skipped') log(`  skipped: ${result.reason}`);
      for (const name of VARIANTS) {
        const v = result.variants?.[name];
        if (v)
          log(
            `  ${name}: ${v.figures.requestsPerSecond} req/s (${v.ratio} of plain), p50 ${v.figures.p50Ms} ms, p99 ${v.figures.p99Ms} ms, service CPU ${v.figures.cpu?.server ?? '–'} µs/req, errors ${v.figures.errors}`,
          );
      }
      results.push(result);
    }
    const header = `# bench:tracing ${startedAt}\n\n${machine.cpus} × ${machine.cpuModel}, node ${machine.node}; ${settings.connections} connections, ${settings.durationSeconds} s per variant (+${settings.warmupSeconds} s warm-up) in ${settings.rounds} turns; method: bench/README.md (bench:tracing).`;
    const md = markdown(results, header);
    fs.writeFileSync(
      path.join(settings.out, 'tracing.json'),
      `${JSON.stringify({ startedAt, finishedAt: new Date().toISOString(), settings, machine, scenarios: results }, null, 2)}\n`,
    );
    fs.writeFileSync(path.join(settings.out, 'tracing.md'), md);
    log('');
    log(md);
    log(`written: ${path.relative(ROOT, path.join(settings.out, 'tracing.md'))}, tracing.json`);
  } finally {
    for (const service of started) await service.stop();
    await receiver.close();
    await workspace.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:tracing failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
