import { AppProcess, spawnAppProcess } from './support/app-process-runner';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

// The shortest lease the service accepts: a killed instance's claimed events are due again after it.
const LEASE_SECONDS = 15;
const EVENTS = 30;

describe('Webhook delivery after an instance dies mid-batch (e2e)', () => {
  let receiver: WebhookReceiver;
  let producer: TestApp;
  const processes: AppProcess[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // Writes events, delivers none: only the child processes deliver.
    producer = await startTestApp('webhook-crash', { webhookUrl: receiver.url, webhookSecret: receiver.secret, env: { JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    for (const child of processes) await child.stop('SIGKILL');
    await producer.close();
    await receiver.close();
  });

  it('delivers every event of a batch claimed by a SIGKILLed instance, soon after its lease runs out', async () => {
    const env = { WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS) };
    const doomed = await spawnAppProcess(producer, env);
    processes.push(doomed);
    receiver.stall(true);

    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i += 1) {
      const res = await producer.client('acme').post<{ eventId: string }>('/v1/webhooks/test', { eventType: 'transaction' });
      expect(res.status).toBe(200);
      ids.push(res.body.eventId);
    }
    // The doomed instance has claimed every event and its posts hang at the receiver.
    await receiver.waitFor(() => ids.every((id) => receiver.forEvent(id).length === 1));
    await doomed.stop('SIGKILL');
    const killedAt = Date.now();

    const db = await producer.db();
    try {
      const leased = await db.query(
        `select count(*)::int as n from outbox_events
          where id = any($1::uuid[]) and attempts = 1 and delivered_at is null and next_attempt_at > now()`,
        [ids],
      );
      expect(leased.rows[0].n).toBe(EVENTS);

      receiver.stall(false);
      const survivor = await spawnAppProcess(producer, env);
      processes.push(survivor);
      await receiver.waitFor(() => ids.every((id) => receiver.forEvent(id).some((w) => w.answered === 200)), (LEASE_SECONDS + 30) * 1000);
      const recoveredMs = Date.now() - killedAt;
      // The lease, one poll and the survivor's start (which the lease's wait overlaps).
      expect(recoveredMs).toBeLessThan((LEASE_SECONDS + 20) * 1000);
      for (const id of ids) {
        const deliveries = receiver.forEvent(id);
        expect(deliveries.every((w) => w.verified && w.body === deliveries[0].body)).toBe(true);
      }

      const settled = async () =>
        (await db.query(`select count(*)::int as n from outbox_events where id = any($1::uuid[]) and delivered_at is not null and attempts = 2`, [ids])).rows[0]
          .n;
      const deadline = Date.now() + 10_000;
      while ((await settled()) < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await settled()).toBe(EVENTS);
      // The killed attempt left no log row; the survivor's attempt 2 is logged with its 200.
      const log = await db.query(`select attempt, status_code from webhook_deliveries where event_id = any($1::uuid[])`, [ids]);
      expect(log.rows).toHaveLength(EVENTS);
      expect(log.rows.every((r: { attempt: number; status_code: number }) => r.attempt === 2 && r.status_code === 200)).toBe(true);
    } finally {
      await db.end();
    }
  }, 180_000);
});
