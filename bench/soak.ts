/**
 * Soak with faults: `npm run soak` (SOAK_MINUTES, default 5) or `npm run soak -- --short` (30 s).
 * Two app instances from dist share the embedded PostgreSQL; SOAK_WORKERS client processes
 * (default 4, SOAK_CONCURRENCY calls each) send mixed traffic with the retry policy while one
 * instance is SIGKILLed and restarted and the database is stopped and started again. Then it
 * drains and reconciles against the database (see reconcile.ts), prints the counts, and exits 1
 * when an invariant does not hold. Not part of `npm test`.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, ServiceProcess, sleep, startService } from './processes';
import { reconcile, SoakTotals } from './soak-reconcile';
import { startWebhookReceiver } from './webhook-receiver';
import { SeenEnrollment, WorkerConfig, WorkerReport } from './soak-worker';
import { BENCH_PARTNER, BENCH_PROGRAM, createWorkspace, Workspace } from './workspace';

const short = process.argv.includes('--short');
const durationMs = short ? 30_000 : Number(process.env.SOAK_SECONDS ?? Number(process.env.SOAK_MINUTES ?? 5) * 60) * 1000;
const workers = Number(process.env.SOAK_WORKERS ?? (short ? 2 : 4));
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? (short ? 2 : 4));
const logDir = path.join(ROOT, 'bench', 'results');

function log(line: string): void {
  process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

function instanceEnv(workspace: Workspace): Record<string, string> {
  return workspace.serviceEnv({
    PUBLIC_URL: 'http://soak.test',
    WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000,8000,8000,8000',
    DB_POOL_SIZE: '10',
  });
}

function runWorker(config: WorkerConfig): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(ROOT, 'dist', 'bench', 'soak-worker.js'), [], {
      env: { PATH: process.env.PATH ?? '', SOAK_WORKER: JSON.stringify(config) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: WorkerReport | undefined;
    child.on('message', (message: WorkerReport) => {
      if (message.type === 'report') report = message;
    });
    child.on('exit', (code) => (report ? resolve(report) : reject(new Error(`worker ${config.index} exited with ${code} and no report`))));
  });
}

const deliberate = new Set<number>();

/** Counts an instance that exits without being killed on purpose (a crash under the faults). */
function watch(instance: ServiceProcess, name: string, totals: SoakTotals): ServiceProcess {
  instance.child.once('exit', (code, signal) => {
    if (deliberate.has(instance.child.pid ?? -1)) return;
    totals.unexpectedExits += 1;
    log(`${name} (pid ${instance.child.pid}) exited on its own: code ${code}, signal ${signal}; see bench/results/soak-*.log`);
  });
  return instance;
}

async function faults(workspace: Workspace, instances: ServiceProcess[], env: Record<string, string>, totals: SoakTotals): Promise<void> {
  await sleep(durationMs * 0.25);
  const victim = instances[1];
  log(`SIGKILL app instance 2 (pid ${victim.child.pid}, port ${victim.port})`);
  deliberate.add(victim.child.pid ?? -1);
  await victim.kill();
  totals.appKills += 1;
  instances[1] = watch(await startService({ env, port: victim.port, logFile: path.join(logDir, 'soak-app-2.log') }), 'app instance 2', totals);
  log(`app instance 2 restarted (pid ${instances[1].child.pid})`);
  const untilDb = durationMs * 0.5 - (Date.now() - totals.startedAt);
  if (untilDb > 0) await sleep(untilDb);
  log('stopping PostgreSQL (postmaster.pid, fast shutdown)');
  await workspace.restartDatabase(2000);
  totals.databaseRestarts += 1;
  log('PostgreSQL started again on the same port and data folder');
}

async function main(): Promise<void> {
  fs.mkdirSync(logDir, { recursive: true });
  for (const file of ['soak-app-1.log', 'soak-app-2.log']) fs.rmSync(path.join(logDir, file), { force: true });
  const receiver = await startWebhookReceiver(0.05);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const workspace = await createWorkspace({ label: 'soak', webhookUrl: receiver.url, webhookSecret: secret, keep: process.env.SOAK_KEEP === '1' });
  if (!workspace.embedded) throw new Error('the soak restarts the embedded PostgreSQL: unset DATABASE_URL');
  const env = instanceEnv(workspace);
  const instances: ServiceProcess[] = [];
  const totals: SoakTotals = { startedAt: Date.now(), appKills: 0, databaseRestarts: 0, unexpectedExits: 0 };
  let exitCode: number;
  try {
    instances.push(watch(await startService({ env, logFile: path.join(logDir, 'soak-app-1.log') }), 'app instance 1', totals));
    instances.push(watch(await startService({ env, logFile: path.join(logDir, 'soak-app-2.log') }), 'app instance 2', totals));
    log(`${workers} client processes x ${concurrency} calls for ${durationMs / 1000} s against ${instances.map((i) => i.baseUrl).join(', ')}`);
    totals.startedAt = Date.now();
    const contended = [7_000_001, 7_000_002, 7_000_003, 7_000_004, 7_000_005];
    const reports = Promise.all(
      Array.from({ length: workers }, (_, index) =>
        runWorker({
          index,
          baseUrls: instances.map((i) => i.baseUrl),
          durationMs,
          concurrency,
          clientId: BENCH_PARTNER.clientId,
          clientSecret: BENCH_PARTNER.clientSecret,
          programCode: BENCH_PROGRAM,
          contended,
        }),
      ),
    );
    await faults(workspace, instances, env, totals);
    const results = await reports;
    log('clients done; draining webhooks and jobs');
    const seen: SeenEnrollment[] = results.flatMap((r) => r.successes);
    const outcome = await reconcile(workspace, receiver, {
      seen,
      unresolved: results.flatMap((r) => r.unresolved),
      outcomes: mergeOutcomes(results),
      anomalies: results.flatMap((r) => r.anomalies),
      contended,
      totals,
    });
    exitCode = outcome.ok ? 0 : 1;
  } finally {
    for (const instance of instances) deliberate.add(instance.child.pid ?? -1);
    for (const instance of instances) await instance.stop();
    await receiver.close();
    await workspace.dispose();
  }
  process.exit(exitCode);
}

function mergeOutcomes(reports: WorkerReport[]): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const report of reports) for (const [key, n] of Object.entries(report.outcomes)) merged[key] = (merged[key] ?? 0) + n;
  return merged;
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
