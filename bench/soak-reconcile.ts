/**
 * The soak's verdict, from the database: every enrollment a client saw succeed exists exactly
 * once, no key holds more active accounts than its limit, every outbox event reached the
 * webhook receiver, and no job is stuck. Before judging webhooks and jobs it waits while
 * delivery makes progress (gives up after SOAK_STALL_SECONDS without progress, default 120, or
 * SOAK_DRAIN_SECONDS in all, default 900).
 */
import { Client } from 'pg';
import { sleep } from './processes';
import { SeenEnrollment } from './soak-worker';
import { WebhookReceiver } from './webhook-receiver';
import { Workspace } from './workspace';

export interface SoakTotals {
  startedAt: number;
  appKills: number;
  databaseRestarts: number;
  /** Instances that exited without being killed on purpose. */
  unexpectedExits: number;
}

export interface SoakInput {
  seen: SeenEnrollment[];
  unresolved: string[];
  outcomes: Record<string, number>;
  anomalies: string[];
  contended: number[];
  totals: SoakTotals;
}

interface Check {
  name: string;
  value: string | number;
  ok: boolean;
}

const CONSUMER_ACTIVE_LIMITS: Record<string, number> = { ssn: 1, itin: 1, phone: 2 };

async function rows<T>(db: Client, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params)).rows as T[];
}

async function webhookState(db: Client, receiver: WebhookReceiver) {
  const events = await rows<{ id: string; delivered_at: Date | null; dead: boolean }>(db, 'select id, delivered_at, dead from outbox_events');
  const undelivered = events.filter((e) => !e.delivered_at && !e.dead).length;
  const dead = events.filter((e) => e.dead).length;
  const missing = events.filter((e) => !receiver.delivered.has(e.id)).length;
  return { events: events.length, undelivered, dead, missing };
}

async function jobState(db: Client, jobSchema: string) {
  const states = await rows<{ state: string; n: number }>(db, `select state::text as state, count(*)::int as n from ${jobSchema}.job group by 1`).catch(
    () => [],
  );
  const stuck = await rows<{ n: number }>(
    db,
    `select count(*)::int as n from ${jobSchema}.job
      where (state = 'active' and started_on < now() - interval '2 minutes')
         or (state in ('created', 'retry') and start_after < now() - interval '2 minutes')`,
  ).catch(() => [{ n: -1 }]);
  return { states: Object.fromEntries(states.map((s) => [s.state, s.n])), stuck: stuck[0]?.n ?? 0 };
}

export async function reconcile(workspace: Workspace, receiver: WebhookReceiver, input: SoakInput): Promise<{ ok: boolean }> {
  const db = await workspace.db();
  const jobSchema = `pgboss_${workspace.schema}`.slice(0, 63);
  try {
    // Drain while delivery makes progress: a backlog is not a stuck queue, a stall is.
    const drainStart = Date.now();
    const cap = drainStart + Number(process.env.SOAK_DRAIN_SECONDS ?? 900) * 1000;
    // Longer than a crashed instance's claimed events take to come back (WEBHOOK_LEASE_SECONDS, 30 s)
    // and its jobs (30 s expiry + 30 s maintenance pass).
    const stallMs = Number(process.env.SOAK_STALL_SECONDS ?? 120) * 1000;
    let hooks = await webhookState(db, receiver);
    let jobs = await jobState(db, jobSchema);
    const backlogAtStart = hooks.undelivered;
    let lastProgress = Date.now();
    let best = hooks.undelivered;
    while ((hooks.undelivered > 0 || hooks.missing > hooks.dead || jobs.stuck > 0) && Date.now() < cap && Date.now() - lastProgress < stallMs) {
      await sleep(2000);
      hooks = await webhookState(db, receiver);
      jobs = await jobState(db, jobSchema);
      if (hooks.undelivered < best) {
        best = hooks.undelivered;
        lastProgress = Date.now();
      }
    }
    const drainSeconds = Math.round((Date.now() - drainStart) / 1000);
    process.stdout.write(`\ndrain: ${backlogAtStart} undelivered events when the clients stopped, ${hooks.undelivered} after ${drainSeconds} s\n`);

    const ids = input.seen.map((s) => s.accountIdentifier);
    const found = await rows<{ id: string; request_id: string | null }>(db, 'select id::text, request_id from accounts where id = any($1::uuid[])', [ids]);
    const byId = new Map(found.map((f) => [f.id, f.request_id]));
    const seenMissing = input.seen.filter((s) => !byId.has(s.accountIdentifier)).length;
    const seenWrongRequest = input.seen.filter((s) => byId.has(s.accountIdentifier) && byId.get(s.accountIdentifier) !== s.requestId).length;
    const distinctSeen = new Set(input.seen.map((s) => s.requestId)).size;
    const duplicates = await rows<{ request_id: string; n: number }>(
      db,
      `select request_id, count(*)::int as n from accounts where request_id is not null group by partner_id, program_code, request_id having count(*) > 1`,
    );
    const accounts = await rows<{ n: number; pending: number }>(
      db,
      `select count(*)::int as n, count(*) filter (where status = 'pending')::int as pending from accounts`,
    );
    const incompleteKeys = await rows<{ n: number }>(db, `select count(*)::int as n from idempotency_keys where response_body is null`);
    const overLimit = await rows<{ key_kind: string; n: number }>(
      db,
      `select k.key_kind, count(*)::int as n from account_limit_keys k join accounts a on a.id = k.account_id
        where a.status <> 'closed' and k.account_type = 'consumer'
        group by k.program_code, k.key_kind, k.key_bidx
       having count(*) > case k.key_kind when 'phone' then ${CONSUMER_ACTIVE_LIMITS.phone} else ${CONSUMER_ACTIVE_LIMITS.ssn} end`,
    );
    const contendedSeen = new Map<number, number>();
    for (const s of input.seen) if (s.contendedSsn !== undefined) contendedSeen.set(s.contendedSsn, (contendedSeen.get(s.contendedSsn) ?? 0) + 1);
    const contendedOver = [...contendedSeen.values()].filter((n) => n > 1).length;

    const checks: Check[] = [
      { name: 'enrollments seen succeeding (distinct requestIds)', value: distinctSeen, ok: distinctSeen > 0 },
      { name: '  of which missing from the database', value: seenMissing, ok: seenMissing === 0 },
      { name: '  of which stored under another requestId', value: seenWrongRequest, ok: seenWrongRequest === 0 },
      { name: '  same requestId answered with two accounts', value: input.seen.length - distinctSeen, ok: input.seen.length === distinctSeen },
      { name: 'requestIds with more than one account in the database', value: duplicates.length, ok: duplicates.length === 0 },
      { name: 'accounts in the database (pending)', value: `${accounts[0].n} (${accounts[0].pending})`, ok: true },
      { name: 'idempotency keys without a final response (calls never completed)', value: incompleteKeys[0].n, ok: true },
      { name: 'calls still failing after the final identical retry', value: input.unresolved.length, ok: input.unresolved.length === 0 },
      { name: 'limit keys over their active limit (ssn 1, phone 2)', value: overLimit.length, ok: overLimit.length === 0 },
      { name: `contended SSNs (${input.contended.length}) won more than once`, value: contendedOver, ok: contendedOver === 0 },
      { name: 'outbox events', value: hooks.events, ok: true },
      { name: '  undelivered (not delivered, not dead)', value: hooks.undelivered, ok: hooks.undelivered === 0 },
      { name: '  dead', value: hooks.dead, ok: hooks.dead === 0 },
      { name: '  never received by the webhook endpoint', value: hooks.missing, ok: hooks.missing === 0 },
      { name: 'webhook attempts refused on purpose (500)', value: receiver.refused, ok: true },
      { name: 'jobs by state', value: JSON.stringify(jobs.states), ok: true },
      { name: 'jobs stuck (active > 2 min, or due > 2 min ago)', value: jobs.stuck, ok: jobs.stuck === 0 },
      { name: 'client anomalies (unexpected answers)', value: input.anomalies.length, ok: input.anomalies.length === 0 },
      { name: 'app instances SIGKILLed and restarted', value: input.totals.appKills, ok: input.totals.appKills > 0 },
      { name: 'database restarts', value: input.totals.databaseRestarts, ok: input.totals.databaseRestarts > 0 },
      { name: 'app instances that died on their own', value: input.totals.unexpectedExits, ok: input.totals.unexpectedExits === 0 },
    ];
    const width = Math.max(...checks.map((c) => c.name.length));
    process.stdout.write('\nclient outcomes (operation status/code/subCode: count):\n');
    for (const [key, n] of Object.entries(input.outcomes).sort()) process.stdout.write(`  ${key}: ${n}\n`);
    process.stdout.write('\nreconciliation:\n');
    for (const check of checks) process.stdout.write(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name.padEnd(width)}  ${check.value}\n`);
    for (const anomaly of input.anomalies.slice(0, 20)) process.stdout.write(`  anomaly: ${anomaly}\n`);
    for (const call of input.unresolved.slice(0, 10)) process.stdout.write(`  still failing: ${call}\n`);
    const ok = checks.every((c) => c.ok);
    process.stdout.write(`\nsoak ${ok ? 'PASSED' : 'FAILED'}\n`);
    return { ok };
  } finally {
    await db.end();
  }
}
