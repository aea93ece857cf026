/**
 * Failover scenario: `npm run test:failover` (root: it installs and starts the cluster of
 * scripts/ha-cluster). Two app instances from dist reach PostgreSQL through HAProxy; several
 * partners send enrollments, replays, user updates and webhook test events with SERVICE.md's retry
 * policy; mid-burst the primary's PostgreSQL is SIGKILLed and Patroni promotes the standby. Then it
 * reconciles against the new primary, prints a summary, and exits 1 when an invariant does not hold.
 *
 *   --async / FAILOVER_SYNC=false  the control: asynchronous replication (synchronous_mode: false)
 *   FAILOVER_SECONDS               length of the burst (default 40; the kill comes after a quarter)
 *   FAILOVER_STANDBY_LAG_MS        stop the primary's WAL sender this long before the kill (default 0):
 *                                  a lagging standby, what synchronous replication guards against
 *   FAILOVER_KEEP=1                leave the cluster and the workspace for a post-mortem
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { killPostgres, pauseWalSender, primaryOf, startCluster, waitForNewPrimary } from './failover-cluster';
import { Traffic, TrafficReport } from './failover-traffic';
import { ROOT, ServiceProcess, sleep, startService } from './processes';
import { startWebhookReceiver, WebhookReceiver } from './webhook-receiver';
import { BENCH_PARTNER_SCOPES, BENCH_PROGRAM, createWorkspace, Workspace } from './workspace';

const synchronous = !process.argv.includes('--async') && process.env.FAILOVER_SYNC !== 'false';
const burstMs = Number(process.env.FAILOVER_SECONDS ?? 40) * 1000;
const keep = process.env.FAILOVER_KEEP === '1';
const standbyLagMs = Number(process.env.FAILOVER_STANDBY_LAG_MS ?? 0);
const HARD_LIMIT_MS = 10 * 60_000;
const logDir = path.join(ROOT, 'bench', 'results');
const CONTENDED = [8_000_001, 8_000_002, 8_000_003, 8_000_004];
const PARTNERS = ['alpha', 'beta', 'gamma'].map((name) => ({
  partnerId: `failover-${name}`,
  clientId: `failover-${name}`,
  clientSecret: `failover-${randomBytes(12).toString('hex')}`,
}));

function log(line: string): void {
  process.stdout.write(`[failover ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

interface Timeline {
  killAt?: number;
  promotedAt?: number;
  /** /health/ready of instance 1 from the kill until its first 200 after the promotion, and when that came. */
  readyDuringGap: number[];
  readyAgainAt?: number;
  unexpectedExits: number;
}

/** Several partners of one program, each with its webhook on the local receiver. */
function writePartners(workspace: Workspace, receiver: WebhookReceiver): void {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const config = {
    programs: [{ programCode: BENCH_PROGRAM, currencies: ['USD'], kycRequired: true, kybEnabled: true, matriculaEnabled: true }],
    partners: PARTNERS.map((p) => ({ ...p, programs: [BENCH_PROGRAM], scopes: [...BENCH_PARTNER_SCOPES], webhook: { url: receiver.url, secret } })),
  };
  fs.writeFileSync(workspace.configFile, JSON.stringify(config, null, 2));
}

async function watchReadiness(instance: ServiceProcess, timeline: Timeline, until: () => boolean): Promise<void> {
  while (!until()) {
    const status = await fetch(`${instance.baseUrl}/health/ready`, { signal: AbortSignal.timeout(3000) })
      .then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      })
      .catch(() => 0);
    if (timeline.killAt && !timeline.readyAgainAt) timeline.readyDuringGap.push(status);
    if (timeline.promotedAt && status === 200 && !timeline.readyAgainAt) timeline.readyAgainAt = Date.now();
    await sleep(200);
  }
}

async function main(): Promise<void> {
  fs.mkdirSync(logDir, { recursive: true });
  const logs = ['failover-app-1.log', 'failover-app-2.log'].map((file) => path.join(logDir, file));
  for (const file of logs) fs.rmSync(file, { force: true });

  log(`starting the cluster (synchronous_mode: ${synchronous})`);
  const clusterStarted = Date.now();
  const cluster = startCluster({ dir: `/tmp/enrollment-ha-${process.pid}`, synchronous, portBase: 25430 });
  // start.sh bounds its own waits; from here on, so does this.
  const hardStop = setTimeout(() => {
    process.stderr.write(`failover scenario still running after ${HARD_LIMIT_MS / 60_000} min: giving up\n`);
    if (!keep) cluster.stop();
    process.exit(2);
  }, HARD_LIMIT_MS);
  hardStop.unref();
  log(`cluster up in ${((Date.now() - clusterStarted) / 1000).toFixed(1)} s: ${cluster.databaseUrl.replace(/:[^:@/]+@/, ':***@')}`);
  process.env.DATABASE_URL = cluster.databaseUrl;
  const receiver = await startWebhookReceiver(0.05);
  const workspace = await createWorkspace({ label: 'failover', keep });
  writePartners(workspace, receiver);
  const env = workspace.serviceEnv({
    PUBLIC_URL: 'http://failover.test',
    DATABASE_TLS: 'off',
    WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,4000,8000,8000,8000,8000',
    DB_POOL_SIZE: '10',
  });
  const timeline: Timeline = { readyDuringGap: [], unexpectedExits: 0 };
  const instances: ServiceProcess[] = [];
  let stopping = false;
  let exitCode: number;
  try {
    for (const [index, logFile] of logs.entries()) {
      const instance = await startService({ env, logFile });
      instance.child.once('exit', () => {
        if (!stopping) {
          timeline.unexpectedExits += 1;
          log(`app instance ${index + 1} exited on its own; see ${logFile}`);
        }
      });
      instances.push(instance);
    }
    const traffic = new Traffic({
      partners: PARTNERS,
      baseUrls: instances.map((i) => i.baseUrl),
      programCode: BENCH_PROGRAM,
      concurrency: 4,
      contended: CONTENDED,
    });
    await traffic.warm();
    const burstEnds = Date.now() + burstMs;
    log(`${PARTNERS.length} partners x 4 calls for ${burstMs / 1000} s against ${instances.map((i) => i.baseUrl).join(', ')}`);
    const burst = traffic.run(() => Date.now() >= burstEnds);
    const readiness = watchReadiness(instances[0], timeline, () => stopping || Boolean(timeline.readyAgainAt));
    await sleep(burstMs / 4);
    const former = await primaryOf(cluster);
    if (!former) throw new Error('no primary to kill');
    if (standbyLagMs > 0) {
      pauseWalSender(cluster, former);
      log(`${former.name}: WAL sender stopped ${standbyLagMs} ms before the kill (the standby falls behind)`);
      await sleep(standbyLagMs);
    }
    const pid = killPostgres(cluster, former);
    timeline.killAt = Date.now();
    log(`SIGKILL PostgreSQL of ${former.name} (postmaster ${pid}) and its processes`);
    const promoted = await waitForNewPrimary(cluster, former, 90_000);
    if (promoted) {
      timeline.promotedAt = Date.now();
      log(`${promoted.name} is primary after ${((timeline.promotedAt - timeline.killAt) / 1000).toFixed(1)} s`);
    } else log('no new primary within 90 s');
    await burst;
    log('burst over; resending what did not complete');
    await traffic.resendUnresolved(Date.now() + 60_000);
    const report = traffic.report();
    const ok = await reconcile(workspace, receiver, report, timeline);
    stopping = true;
    await readiness;
    exitCode = ok ? 0 : 1;
  } finally {
    stopping = true;
    for (const instance of instances) await instance.stop();
    await receiver.close();
    if (!keep) {
      await workspace.dispose().catch(() => undefined);
      cluster.stop();
    } else log(`kept: cluster in ${cluster.dir} (scripts/ha-cluster/stop.sh with HA_DIR), workspace in ${workspace.dir}`);
  }
  process.exit(exitCode);
}

async function reconcile(workspace: Workspace, receiver: WebhookReceiver, report: TrafficReport, timeline: Timeline): Promise<boolean> {
  const db = await workspace.db();
  const q = async <T>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows as T[];
  try {
    // Delivery drains while it makes progress (bounded): a backlog is not a lost event.
    const drainDeadline = Date.now() + 120_000;
    while (Date.now() < drainDeadline) {
      const live = await q<{ id: string }>('select id::text from outbox_events where dead = false');
      if (live.every((e) => receiver.delivered.has(e.id))) break;
      await sleep(1000);
    }
    const events = await q<{ id: string; dead: boolean }>('select id::text, dead from outbox_events');
    const eventIds = new Set(events.map((e) => e.id));
    const ids = report.acknowledged.map((a) => a.accountIdentifier);
    const found = await q<{ id: string; request_id: string; partner_id: string; cards: number }>(
      `select a.id::text, a.request_id, a.partner_id,
              (select count(*) from payment_instruments c where c.account_id = a.id)::int as cards
         from accounts a where a.id = any($1::uuid[])`,
      [ids],
    );
    const byId = new Map(found.map((f) => [f.id, f]));
    const lost = report.acknowledged.filter((a) => !byId.has(a.accountIdentifier));
    const misfiled = report.acknowledged.filter((a) => {
      const row = byId.get(a.accountIdentifier);
      return row && (row.request_id !== a.requestId || row.partner_id !== a.partner);
    });
    const withoutCard = found.filter((f) => f.cards !== 1).length;
    const answeredTwice = report.acknowledged.length - new Set(report.acknowledged.map((a) => `${a.partner}/${a.requestId}`)).size;
    const duplicates = await q<{ n: number }>(
      `select count(*)::int as n from (select 1 from accounts where request_id is not null
        group by partner_id, program_code, request_id having count(*) > 1) d`,
    );
    const overLimit = await q<{ n: number }>(
      `select count(*)::int as n from (select 1 from account_limit_keys k join accounts a on a.id = k.account_id
        where a.status <> 'closed' and k.account_type = 'consumer'
        group by k.program_code, k.key_kind, k.key_bidx
       having count(*) > case k.key_kind when 'phone' then 2 else 1 end) o`,
    );
    const retried = report.acknowledged.filter((a) => a.retries > 0);
    const lostTestEvents = report.testEvents.filter((id) => !eventIds.has(id)).length;
    const neverReceived = events.filter((e) => !receiver.delivered.has(e.id)).length;
    const firstSuccess = timeline.killAt ? report.firstSuccessAfter(timeline.killAt) : undefined;
    const seconds = (at: number | undefined) => (at && timeline.killAt ? ((at - timeline.killAt) / 1000).toFixed(1) : 'never');
    const gap = timeline.readyDuringGap;
    const checks: Array<{ name: string; value: string | number; ok: boolean }> = [
      {
        name: 'replication',
        value: `synchronous_mode: ${synchronous}${standbyLagMs > 0 ? `, standby behind for ${standbyLagMs} ms before the kill` : ''}`,
        ok: true,
      },
      { name: 'enrollments answered 200 (acknowledged)', value: report.acknowledged.length, ok: report.acknowledged.length > 0 },
      { name: '  lost (acknowledged, missing after failover)', value: lost.length, ok: lost.length === 0 },
      { name: '  stored under another requestId or partner', value: misfiled.length, ok: misfiled.length === 0 },
      { name: '  without exactly one card', value: withoutCard, ok: withoutCard === 0 },
      { name: '  same requestId answered twice', value: answeredTwice, ok: answeredTwice === 0 },
      { name: '  completed after retries (503 resent)', value: retried.length, ok: true },
      { name: 'requestIds with two accounts (duplicated)', value: duplicates[0].n, ok: duplicates[0].n === 0 },
      { name: 'limit keys over their count', value: overLimit[0].n, ok: overLimit[0].n === 0 },
      { name: 'calls unresolved after the identical resends', value: report.unresolved.length, ok: report.unresolved.length === 0 },
      { name: 'attempts answered 500', value: report.fiveHundreds, ok: report.fiveHundreds === 0 },
      { name: 'other unexpected answers', value: report.anomalies.length - report.fiveHundreds, ok: report.anomalies.length === report.fiveHundreds },
      { name: 'webhook test events answered 200, missing', value: `${report.testEvents.length}, ${lostTestEvents}`, ok: lostTestEvents === 0 },
      { name: 'outbox events, never received by the receiver', value: `${events.length}, ${neverReceived}`, ok: neverReceived === 0 },
      { name: 'seconds from kill to promotion', value: seconds(timeline.promotedAt), ok: timeline.promotedAt !== undefined },
      { name: 'seconds from kill to first successful enrollment', value: seconds(firstSuccess), ok: firstSuccess !== undefined },
      {
        name: '/health/ready from the kill until ready again (503s, 200s)',
        value: `${gap.filter((s) => s === 503).length}, ${gap.filter((s) => s === 200).length}`,
        ok: true,
      },
      { name: 'seconds from kill to ready again', value: seconds(timeline.readyAgainAt), ok: timeline.readyAgainAt !== undefined },
      { name: 'app instances that died on their own', value: timeline.unexpectedExits, ok: timeline.unexpectedExits === 0 },
    ];
    const width = Math.max(...checks.map((c) => c.name.length));
    process.stdout.write('\nclient outcomes (operation status/code/subCode: attempts):\n');
    for (const [key, n] of Object.entries(report.outcomes).sort()) process.stdout.write(`  ${key}: ${n}\n`);
    process.stdout.write('\nreconciliation:\n');
    for (const check of checks) process.stdout.write(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name.padEnd(width)}  ${check.value}\n`);
    for (const anomaly of report.anomalies.slice(0, 20)) process.stdout.write(`  anomaly: ${anomaly}\n`);
    for (const call of report.unresolved.slice(0, 10)) process.stdout.write(`  unresolved: ${call}\n`);
    for (const a of lost.slice(0, 10)) process.stdout.write(`  lost: ${a.partner}/${a.requestId} account ${a.accountIdentifier}\n`);
    const ok = checks.every((c) => c.ok);
    process.stdout.write(`\nfailover ${ok ? 'PASSED' : 'FAILED'}\n`);
    return ok;
  } finally {
    await db.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`failover scenario failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
