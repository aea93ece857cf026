/**
 * Node CPU per request, route by route, without the load generator or the socket: the whole app
 * in this process (Fastify's inject), each scenario's requests sent 20 at a time, and the process's
 * CPU time divided by the requests. A bare Fastify route answering a constant through inject is the
 * floor measured in the same run. `npm run bench:cpu` (BENCH_CPU_REQUESTS, BENCH_SCENARIOS); with
 * `node --cpu-prof dist/bench/cpu.js` the profile holds only these requests and start-up.
 */
import Fastify from 'fastify';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Pool } from 'pg';
import { AppConfig } from '../src/config/app-config';
import { createApp } from '../src/app.factory';
import { captureLogs } from '../src/infrastructure/logging/logging';
import { BenchRequest, buildScenarios, Inject, injectInto, nextEnrollment, ScenarioContext } from './scenarios';
import { enrolledFrom } from './requests';
import { KIND_LETTERS, prepareBaselineRows, replayPlan } from './sql-plan';
import { accessTokenOf, benchTokenRequest, createWorkspace } from './workspace';

const REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 3000);
const CONCURRENCY = 20;
const only = process.env.BENCH_SCENARIOS?.split(',').map((s) => s.trim());

async function measure(inject: Inject, next: () => BenchRequest, accept: (s: number, t: string, r: BenchRequest) => boolean, n: number) {
  let sent = 0;
  let failed = 0;
  const worker = async () => {
    while (sent < n) {
      sent++;
      const request = next();
      const answer = await inject(request);
      if (!accept(answer.statusCode, answer.payload, request)) failed++;
    }
  };
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  return { cpuUsPerRequest: Math.round((cpu.user + cpu.system) / n), wallMsPerRequest: +(wall / n).toFixed(3), failed };
}

async function main(): Promise<void> {
  const workspace = await createWorkspace({ label: 'cpu' });
  const env = workspace.serviceEnv({ LOG_LEVEL: 'info', NODE_ENV: 'production' });
  Object.assign(process.env, env);
  const logFile = fs.createWriteStream(path.join(workspace.dir, 'server.log'));
  captureLogs(logFile);
  const app = await createApp(AppConfig.load(env));
  const fastify = app.getHttpAdapter().getInstance();
  const inject = injectInto(fastify);
  const floor = Fastify();
  floor.post('/*', async () => ({ ok: true }));
  floor.get('/*', async () => ({ ok: true }));
  floor.put('/*', async () => ({ ok: true }));
  // Baseline (a)'s work in-process: the same route running its select by primary key through a pg pool.
  const pgSchema = 'bench_baseline_cpu';
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 20, options: `-c search_path=${pgSchema}` });
  pool.on('error', () => undefined); // an idle connection ended by the database's shutdown at the end
  await prepareBaselineRows(pool, pgSchema);
  const pgFloor = Fastify();
  pgFloor.get('/*', async () => {
    const client = await pool.connect();
    try {
      await replayPlan(client, KIND_LETTERS.select, '');
    } finally {
      client.release();
    }
    return { ok: true };
  });
  await floor.ready();
  await pgFloor.ready();
  const injectFloor = injectInto(floor);
  try {
    const tokenAnswer = await inject(benchTokenRequest());
    const context: ScenarioContext = { token: accessTokenOf(tokenAnswer.statusCode, tokenAnswer.payload), enrolled: [] };
    for (let i = 0; i < 200; i++) {
      const request = nextEnrollment(context.token);
      const answer = await inject(request);
      const enrolled = enrolledFrom(answer.statusCode, answer.payload, request.body ?? '');
      if (enrolled) context.enrolled.push(enrolled);
    }
    const floorFigures = await measure(
      injectFloor,
      () => ({ method: 'GET', path: '/x', headers: {} }),
      () => true,
      REQUESTS,
    );
    process.stdout.write(`floor (bare Fastify inject): ${floorFigures.cpuUsPerRequest} µs CPU/request\n`);
    const injectPg: Inject = (r) => pgFloor.inject({ method: 'GET', url: r.path }) as never;
    await measure(
      injectPg,
      () => ({ method: 'GET', path: '/x', headers: {} }),
      () => true,
      300,
    );
    const pgFigures = await measure(
      injectPg,
      () => ({ method: 'GET', path: '/x', headers: {} }),
      () => true,
      REQUESTS,
    );
    process.stdout.write(`pg floor (bare Fastify inject, one select by key through pg): ${pgFigures.cpuUsPerRequest} µs CPU/request\n`);
    for (const scenario of buildScenarios(context)) {
      if (only && !only.includes(scenario.name)) continue;
      if (scenario.blocked()) continue;
      await measure(
        inject,
        () => scenario.next(),
        (s, t, r) => scenario.accept(s, t, r),
        Math.min(300, REQUESTS),
      );
      const figures = await measure(
        inject,
        () => scenario.next(),
        (s, t, r) => scenario.accept(s, t, r),
        scenario.name === 'enrollment' ? Math.min(REQUESTS, 1000) : REQUESTS,
      );
      process.stdout.write(
        `${scenario.name}: ${figures.cpuUsPerRequest} µs CPU/request, ${figures.wallMsPerRequest} ms wall/request, ${figures.failed} failed\n`,
      );
    }
  } finally {
    await pgFloor.close();
    await pool.end();
    await app.close();
    await floor.close();
    await workspace.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
