import * as fs from 'node:fs';
import * as path from 'node:path';
import { JobQueue } from '../src/infrastructure/queue/job-queue';
import { IDEMPOTENCY_PURGE_JOB } from '../src/modules/idempotency/idempotency-purge';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { sample, scrape } from './support/metrics';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';
import { tokenRequest } from './support/token-requests';
import { WebhookReceiver } from './support/webhook-receiver';

const ENROLL = '/v1/programs/sandbox/enrollments';

async function value(app: TestApp, name: string, labels = ''): Promise<number> {
  const found = sample(await scrape(app), name, labels);
  expect(found).toBeDefined();
  return found as number;
}

async function eventually(read: () => Promise<number>, accept: (n: number) => boolean, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await read();
    if (accept(n) || Date.now() > deadline) return n;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('Operational metrics (e2e, CONTRACT section 16)', () => {
  let webhooks: WebhookReceiver;
  let app: TestApp;

  beforeAll(async () => {
    webhooks = await WebhookReceiver.start();
    app = await startTestApp('metrics', {
      webhookUrl: webhooks.url,
      webhookSecret: webhooks.secret,
      env: { OFAC_LIST_DIR: path.join(__dirname, 'fixtures', 'ofac'), WEBHOOK_RETRY_DELAYS_MS: '60000' },
    });
  });

  afterAll(async () => {
    await app.close();
    await webhooks.close();
  });

  it('exposes every metric from start-up, 0 while nothing happened', async () => {
    const text = await scrape(app);
    for (const [name, labels] of [
      ['db_client_connection_count', 'state="idle"'],
      ['db_client_connection_count', 'state="used"'],
      ['db_client_connection_pending_requests', ''],
      ['outbox_pending_events', ''],
      ['outbox_oldest_pending_age_seconds', ''],
      ['webhook_delivery_attempts_total', 'outcome="delivered"'],
      ['webhook_delivery_attempts_total', 'outcome="failed"'],
      ['webhook_delivery_attempts_total', 'outcome="abandoned"'],
      ['rate_limited_requests_total', 'route="/oauth2/token"'],
      ['partner_in_flight_rejections_total', ''],
      ['ofac_list_entries', ''],
      ['ofac_list_loaded_timestamp_seconds', ''],
      ['ofac_list_file_timestamp_seconds', ''],
      ...['completed', 'declined', 'held', 'referred', 'incomplete'].map((outcome) => ['enrollment_outcomes_total', `outcome="${outcome}"`]),
    ]) {
      expect({ name, labels, value: sample(text, name, labels) }).toEqual({ name, labels, value: expect.any(Number) });
    }
    expect(sample(text, 'enrollment_outcomes_total', 'outcome="completed"')).toBe(0);
    expect(sample(text, 'partner_in_flight_rejections_total')).toBe(0);
    expect(text).toMatch(/^pgboss_queue_depth\{queue="[^"]+"\} \d+$/m);
  });

  it('counts each enrollment once, on the call that decided it, by outcome', async () => {
    const outcome = (o: string) => value(app, 'enrollment_outcomes_total', `outcome="${o}"`);
    const before = Object.fromEntries(await Promise.all(['completed', 'declined', 'held', 'referred', 'incomplete'].map(async (o) => [o, await outcome(o)])));
    const client = app.client('acme');

    const completed = EnrollmentRequestFactory.build();
    expect((await client.post(ENROLL, completed)).status).toBe(200);
    // The identical retry is a replay: not counted again.
    expect((await client.post(ENROLL, completed)).status).toBe(200);
    // The same SSN again (another requestId): the active-account limit declines it.
    const declined = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn: completed.encryptedUserData.identifyingData.ssn } } });
    expect((await client.post(ENROLL, declined)).status).toBe(200);
    expect((await client.post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } }))).status).toBe(200);
    expect((await client.post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Kycrefer' } }))).status).toBe(200);
    expect((await client.post(ENROLL, EnrollmentRequestFactory.build(), { headers: { 'x-sandbox-fault': 'billCycle' } })).status).toBe(200);

    for (const o of ['completed', 'declined', 'held', 'referred', 'incomplete']) expect({ o, moved: (await outcome(o)) - before[o] }).toEqual({ o, moved: 1 });
  });

  it("counts an enrollment held for OFAC review once, as held: care's clearance that completes it and the partner's retry (a replay) count nothing more", async () => {
    const count = (o: string) => value(app, 'enrollment_outcomes_total', `outcome="${o}"`);
    const [held, completed] = [await count('held'), await count('completed')];
    const client = app.client('acme');
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const answer = await client.post<{ account: { accountIdentifier: string }; responseDetails: Array<{ code: number; subCode: number }> }>(ENROLL, request);
    expect(answer.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect(await count('held')).toBe(held + 1);
    expect((await app.client('care').post(`/v1/care/accounts/${answer.body.account.accountIdentifier}/ofacClear`, {})).status).toBe(200);
    expect((await client.post(ENROLL, request)).headers.get('idempotent-replayed')).toBe('true');
    expect([await count('held'), await count('completed')]).toEqual([held + 1, completed]);
  });

  it('an enrollment interrupted before it was answered is counted by the retry that answers it, even held; then not by the clearance', async () => {
    const count = (o: string) => value(app, 'enrollment_outcomes_total', `outcome="${o}"`);
    const [held, completed] = [await count('held'), await count('completed')];
    const client = app.client('acme');
    const request = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    expect((await client.post(ENROLL, request, { headers: { 'x-sandbox-fault': 'after:accountWritten' }, noRetry: true })).status).toBe(503);
    expect(await count('held')).toBe(held);
    const answer = await client.post<{ account: { accountIdentifier: string }; responseDetails: Array<{ code: number; subCode: number }> }>(ENROLL, request);
    expect(answer.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
    expect((await app.client('care').post(`/v1/care/accounts/${answer.body.account.accountIdentifier}/ofacClear`, {})).status).toBe(200);
    expect([await count('held'), await count('completed')]).toEqual([held + 1, completed]);
  });

  it('counts a phased enrollment once, on the retry that resumed and decided it (the interrupted call decided nothing)', async () => {
    const completed = await value(app, 'enrollment_outcomes_total', 'outcome="completed"');
    const client = app.client('acme');
    const request = EnrollmentRequestFactory.build();
    const interrupted = await client.post(ENROLL, request, { headers: { 'x-sandbox-fault': 'after:accountWritten' }, noRetry: true });
    expect(interrupted.status).toBe(503);
    expect(await value(app, 'enrollment_outcomes_total', 'outcome="completed"')).toBe(completed);
    const resumed = await client.post(ENROLL, request);
    expect(resumed.status).toBe(200);
    expect(resumed.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    // Its replay is not counted again.
    expect((await client.post(ENROLL, request)).headers.get('idempotent-replayed')).toBe('true');
    expect(await value(app, 'enrollment_outcomes_total', 'outcome="completed"')).toBe(completed + 1);
  });

  it('an incomplete enrollment is counted once, as incomplete: neither the retries that leave it incomplete nor the one that completes it count again', async () => {
    const count = (o: string) => value(app, 'enrollment_outcomes_total', `outcome="${o}"`);
    const [incomplete, completed] = [await count('incomplete'), await count('completed')];
    const client = app.client('acme');
    const request = EnrollmentRequestFactory.build();
    for (let i = 0; i < 2; i++) expect((await client.post(ENROLL, request, { headers: { 'x-sandbox-fault': 'billCycle' } })).status).toBe(200);
    expect(await count('incomplete')).toBe(incomplete + 1);
    expect((await client.post(ENROLL, request)).body.account).toMatchObject({ status: 'normal' });
    expect([await count('incomplete'), await count('completed')]).toEqual([incomplete + 1, completed]);
  });

  it('counts webhook attempts by outcome, and shows the backlog and its age while a partner fails', async () => {
    const attempts = (o: string) => value(app, 'webhook_delivery_attempts_total', `outcome="${o}"`);
    // The earlier tests' events first: delivered, the backlog empty.
    expect(
      await eventually(
        () => value(app, 'outbox_pending_events'),
        (n) => n === 0,
      ),
    ).toBe(0);
    expect(await value(app, 'outbox_oldest_pending_age_seconds')).toBe(0);
    const delivered = await attempts('delivered');
    await app.client('acme').post('/v1/webhooks/test', { eventType: 'transaction' });
    expect(
      await eventually(
        () => attempts('delivered'),
        (n) => n > delivered,
      ),
    ).toBe(delivered + 1);

    webhooks.respond(() => 500);
    try {
      const failed = await attempts('failed');
      await app.client('acme').post('/v1/webhooks/test', { eventType: 'transaction' });
      expect(
        await eventually(
          () => attempts('failed'),
          (n) => n > failed,
        ),
      ).toBe(failed + 1);
      // Retried in a minute: pending meanwhile, and older every second.
      expect(await value(app, 'outbox_pending_events')).toBeGreaterThanOrEqual(1);
      expect(
        await eventually(
          () => value(app, 'outbox_oldest_pending_age_seconds'),
          (n) => n >= 1,
        ),
      ).toBeGreaterThanOrEqual(1);
    } finally {
      webhooks.respond(() => 200);
    }
  });

  it('leaves out of the backlog the events of a partner no longer configured: never claimed, they would age the gauge (and its alert) for ever', async () => {
    // The test before may leave an event pending (retried in a minute): the removed partner's adds nothing to the count, nor its hour to the age.
    const before = await value(app, 'outbox_pending_events');
    const db = await app.db();
    try {
      await db.query(
        `insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at, dead, occurred_at)
         values (gen_random_uuid(), 'partner-removed', 'sandbox', null, 'transaction', '{}', now(), false, now() - interval '1 hour')`,
      );
      expect(await value(app, 'outbox_pending_events')).toBeLessThanOrEqual(before);
      expect(await value(app, 'outbox_oldest_pending_age_seconds')).toBeLessThan(600);
    } finally {
      await db.query(`delete from outbox_events where partner_id = 'partner-removed'`);
      await db.end();
    }
  });

  it('shows the pool: connections used and idle from the pool itself', async () => {
    const idle = await value(app, 'db_client_connection_count', 'state="idle"');
    const used = await value(app, 'db_client_connection_count', 'state="used"');
    expect(idle + used).toBeGreaterThan(0);
  });

  it('an idle instance has no caller waiting for a connection: a scrape does not count its own backlog read', async () => {
    // Nothing runs in this file now; the scrape's outbox read used to be seen waiting for its connection.
    const waiting: number[] = [];
    for (let i = 0; i < 5; i++) waiting.push(await value(app, 'db_client_connection_pending_requests'));
    expect(waiting).toEqual([0, 0, 0, 0, 0]);
  });

  it('shows the OFAC list in use: its SDN individuals and when it was loaded', async () => {
    expect(await value(app, 'ofac_list_entries')).toBeGreaterThan(0);
    const loaded = await value(app, 'ofac_list_loaded_timestamp_seconds');
    expect(Date.now() / 1000 - loaded).toBeLessThan(600);
    expect(Date.now() / 1000 - loaded).toBeGreaterThanOrEqual(0);
    // The files' own age, which a restart does not reset (the OfacListStale alert reads it).
    const modified = Math.max(...['sdn.csv', 'alt.csv'].map((file) => fs.statSync(path.join(__dirname, 'fixtures', 'ofac', file)).mtimeMs)) / 1000;
    expect(Math.abs((await value(app, 'ofac_list_file_timestamp_seconds')) - modified)).toBeLessThan(1);
  });

  describe('refusals, and a pool that makes callers wait', () => {
    let tight: TestApp;

    beforeAll(async () => {
      tight = await startTestApp('metrics-tight', { env: { TOKEN_RATE_LIMIT: '2', PARTNER_MAX_IN_FLIGHT: '1', DB_POOL_SIZE: '1', JOBS_ENABLED: 'false' } });
    });

    afterAll(() => tight.close());

    it('0 without an OFAC list', async () => {
      expect(await value(tight, 'ofac_list_entries')).toBe(0);
      expect(await value(tight, 'ofac_list_loaded_timestamp_seconds')).toBe(0);
      expect(await value(tight, 'ofac_list_file_timestamp_seconds')).toBe(0);
    });

    it('shows the depth of a pg-boss queue nobody works (JOBS_ENABLED=false here)', async () => {
      const depth = () => scrape(tight).then((text) => sample(text, 'pgboss_queue_depth', `queue="${IDEMPOTENCY_PURGE_JOB.name}"`) ?? 0);
      const before = await depth();
      await tight.app.get(JobQueue).send(IDEMPOTENCY_PURGE_JOB, {});
      await tight.app.get(JobQueue).send(IDEMPOTENCY_PURGE_JOB, {});
      expect(await depth()).toBe(before + 2);
    });

    it('counts 429s by route pattern', async () => {
      const before = await value(tight, 'rate_limited_requests_total', 'route="/oauth2/token"');
      const { clientId, clientSecret } = PARTNERS.globex;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await tokenRequest(tight.baseUrl, clientId, clientSecret)).status);
      const refused = statuses.filter((s) => s === 429).length;
      expect(refused).toBeGreaterThan(0);
      expect(await value(tight, 'rate_limited_requests_total', 'route="/oauth2/token"')).toBe(before + refused);
    });

    it('counts in-flight refusals (503/3), and callers waiting for the one pooled connection', async () => {
      const client = tight.client('acme');
      const before = await value(tight, 'partner_in_flight_rejections_total');
      await client.get('/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000');
      let waited = 0;
      const calls = Array.from({ length: 12 }, () => client.post(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true }));
      // Reads take no in-flight slot: side by side they queue for the pool's one connection.
      const reader = tight.client('secure');
      await reader.get('/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000');
      const reads = Array.from({ length: 12 }, () => reader.get('/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000'));
      const watching = (async () => {
        for (let i = 0; i < 50; i += 1) {
          waited = Math.max(waited, sample(await scrape(tight), 'db_client_connection_pending_requests') ?? 0);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const answers = await Promise.all(calls);
      await Promise.all([watching, ...reads]);
      const refused = answers.filter((a) => a.status === 503 && a.body.responseDetails[0]?.subCode === 3).length;
      expect(refused).toBeGreaterThan(0);
      expect(await value(tight, 'partner_in_flight_rejections_total')).toBe(before + refused);
      expect(waited).toBeGreaterThan(0);
    });
  });
});
