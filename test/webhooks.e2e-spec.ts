import { EVENT_TYPES } from '../src/modules/events/event-types';
import { startTestApp, TestApp } from './support/test-app';
import { newWebhookSecret, verifySignature, WebhookReceiver } from './support/webhook-receiver';

interface EventBody {
  eventId: string;
  webhookConfigured: boolean;
  programCode: string;
  event: {
    eventId: string;
    deliveryStatus: string;
    attempts: number;
    deliveries: Array<{ attempt: number; statusCode: number | null; outcome: string; url: string; durationMs: number; attemptedDateTime: string }>;
  };
}

// Small retry delays so that the whole retry ladder runs inside a test: 4 attempts at most.
const RETRY_ENV = { WEBHOOK_RETRY_DELAYS_MS: '200,300,400' };

describe('Webhooks (e2e)', () => {
  let receiver: WebhookReceiver;
  let app: TestApp;

  const start = (label: string, schema?: string, env: Record<string, string> = {}) =>
    startTestApp(label, { schema, webhookUrl: receiver.url, webhookSecret: receiver.secret, env: { ...RETRY_ENV, ...env } });

  async function sendTest(target: TestApp, eventType: string, extra: Record<string, unknown> = {}) {
    const res = await target
      .client('acme')
      .post<EventBody & { requestId: string; responseDetails: Array<{ code: number; subCode: number }> }>('/v1/webhooks/test', { eventType, ...extra });
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    return res.body.eventId;
  }

  async function eventView(target: TestApp, eventId: string) {
    const res = await target.client('care').get<EventBody>(`/v1/care/webhooks/events/${eventId}`);
    expect(res.status).toBe(200);
    return res.body.event;
  }

  async function waitForStatus(target: TestApp, eventId: string, status: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const event = await eventView(target, eventId);
      if (event.deliveryStatus === status) return event;
      if (Date.now() > deadline) throw new Error(`event ${eventId} still ${event.deliveryStatus}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await start('webhooks');
  });

  afterEach(() => receiver.respond(() => 200));

  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  it('delivers a signed test event with the Standard Webhooks headers and the contract body', async () => {
    const eventId = await sendTest(app, 'accountUpdated');
    const [webhook] = await receiver.waitFor(() => receiver.forEvent(eventId).length === 1).then(() => receiver.forEvent(eventId));
    expect(webhook.verified).toBe(true);
    expect(verifySignature(newWebhookSecret(), webhook.id, webhook.timestamp, webhook.body, webhook.signature)).toBe(false);
    expect(verifySignature(receiver.secret, webhook.id, webhook.timestamp, `${webhook.body} `, webhook.signature)).toBe(false);
    expect(webhook.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(webhook.timestamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(webhook.timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(webhook.json).toEqual({
      eventId,
      eventType: 'accountUpdated',
      occurredDateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      programCode: 'sandbox',
      accountIdentifier: null,
      data: expect.objectContaining({ test: true }),
    });
    const event = await waitForStatus(app, eventId, 'delivered');
    expect(event.attempts).toBe(1);
    expect(event.deliveries).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, outcome: 'delivered', url: receiver.url })]);
  });
  it('accepts each of the 13 event types and delivers it under that eventType', async () => {
    const ids = new Map<string, string>();
    for (const eventType of EVENT_TYPES) ids.set(await sendTest(app, eventType), eventType);
    await receiver.waitFor(() => [...ids.keys()].every((id) => receiver.forEvent(id).length >= 1));
    for (const [id, eventType] of ids) {
      const [webhook] = receiver.forEvent(id);
      expect(webhook.verified).toBe(true);
      expect(webhook.json.eventType).toBe(eventType);
    }
  });

  it('validates the request: eventType required and one of the 13, unknown properties refused', async () => {
    const client = app.client('acme');
    const missing = await client.post('/v1/webhooks/test', {});
    expect(missing.status).toBe(400);
    expect(missing.body.responseDetails[0]).toMatchObject({ code: 200, subCode: 0, field: 'eventType' });
    const bogus = await client.post('/v1/webhooks/test', { eventType: 'accountDeleted' });
    expect(bogus.status).toBe(400);
    expect(bogus.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 5, field: 'eventType' });
    const unknown = await client.post('/v1/webhooks/test', { eventType: 'transaction', url: 'http://evil.test' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 2, field: 'url' });
  });

  it('uses a program of the partner: the first by default, another on request, never a foreign one', async () => {
    const lite = await app.client('acme').post<EventBody>('/v1/webhooks/test', { eventType: 'nocAlert', programCode: 'lite', requestId: 'wh-lite-1' });
    expect(lite.status).toBe(200);
    expect(lite.body).toMatchObject({ requestId: 'wh-lite-1', programCode: 'lite', webhookConfigured: true });
    await receiver.waitFor(() => receiver.forEvent(lite.body.eventId).length === 1);
    expect(receiver.forEvent(lite.body.eventId)[0].json.programCode).toBe('lite');
    const foreign = await app.client('acme').post('/v1/webhooks/test', { eventType: 'nocAlert', programCode: 'other' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 2 });
  });

  it("care sees only events of its own programs: another program's event is 404/10/0 to a care client without it", async () => {
    const scoped = await startTestApp('webhooks-care-scope', {
      schema: app.schema,
      extraPartners: [{ partnerId: 'care-lite', clientId: 'care-lite', clientSecret: 'care-lite-secret', programs: ['lite'], scopes: ['care'] }],
    });
    try {
      const eventId = await sendTest(scoped, 'statementReady');
      const basic = Buffer.from('care-lite:care-lite-secret').toString('base64');
      const token = (await (
        await fetch(`${scoped.baseUrl}/oauth2/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        })
      ).json()) as { access_token: string };
      const res = await fetch(`${scoped.baseUrl}/v1/care/webhooks/events/${eventId}`, { headers: { authorization: `Bearer ${token.access_token}` } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { responseDetails: unknown[] }).responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
      expect((await scoped.client('care').get(`/v1/care/webhooks/events/${eventId}`)).status).toBe(200);
    } finally {
      await scoped.close();
    }
  });

  it('needs scope webhooks; the care view needs scope care; events are visible to their partner only', async () => {
    const noScope = await app.client('acme', { scope: 'users' }).post('/v1/webhooks/test', { eventType: 'transaction' });
    expect(noScope.status).toBe(403);
    expect(noScope.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 1 });
    const eventId = await sendTest(app, 'statementReady');
    const careByPartner = await app.client('acme').get(`/v1/care/webhooks/events/${eventId}`);
    expect(careByPartner.status).toBe(403);
    expect(careByPartner.body.responseDetails[0]).toMatchObject({ code: 403, subCode: 1 });
    const own = await app.client('acme').get<EventBody>(`/v1/webhooks/events/${eventId}`);
    expect(own.status).toBe(200);
    expect(own.body.event.eventId).toBe(eventId);
    for (const [partner, id] of [
      ['globex', eventId],
      ['acme', '00000000-0000-4000-8000-000000000000'],
      ['acme', 'not-a-uuid'],
    ] as const) {
      const res = await app.client(partner).get(`/v1/webhooks/events/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
    }
  });

  it("settles a pending event as not deliverable, with no attempt counted, once its partner's webhook is removed", async () => {
    // Written while acme had a webhook, on an instance that sends nothing.
    const before = await start('webhooks-removed', undefined, { JOBS_ENABLED: 'false' });
    const eventId = await sendTest(before, 'cardUpdated');
    await before.close();
    // The same data, the webhook gone from the configuration: the poller settles the event without sending it.
    const after = await startTestApp('webhooks-removed', { schema: before.schema, env: RETRY_ENV });
    try {
      expect(await waitForStatus(after, eventId, 'notDeliverable')).toMatchObject({ attempts: 0, deliveries: [], nextAttemptDateTime: null });
    } finally {
      await after.close();
    }
    expect(receiver.received.some((w) => w.json.eventId === eventId)).toBe(false);
  });

  it('settles a pending event of a program its partner no longer lists as not deliverable, and never sends it (CONTRACT section 3)', async () => {
    // Written while acme listed 'lite', on an instance that sends nothing.
    const before = await start('webhooks-program-removed', undefined, { JOBS_ENABLED: 'false' });
    const removed = await sendTest(before, 'cardUpdated', { programCode: 'lite' });
    await before.close();
    // The same data, 'lite' gone from acme's programs: its event is not acme's to receive any more.
    const after = await startTestApp('webhooks-program-removed', {
      schema: before.schema,
      webhookUrl: receiver.url,
      webhookSecret: receiver.secret,
      partnerPrograms: { acme: ['sandbox'] },
      env: RETRY_ENV,
    });
    try {
      expect(await waitForStatus(after, removed, 'notDeliverable')).toMatchObject({ attempts: 0, deliveries: [], nextAttemptDateTime: null });
      // The poller ran: an event of a program acme still lists is delivered.
      const kept = await sendTest(after, 'cardUpdated', { programCode: 'sandbox' });
      await waitForStatus(after, kept, 'delivered');
    } finally {
      await after.close();
    }
    expect(receiver.received.some((w) => w.json.eventId === removed)).toBe(false);
  });

  it("records an attempt's time as when it ended, not when it was written down (two attempts settled together at a stop)", async () => {
    const stopping = await start('webhooks-attempt-time');
    receiver.answerAfter(700);
    const first = await sendTest(stopping, 'cardUpdated');
    await receiver.waitFor(() => receiver.forEvent(first).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await sendTest(stopping, 'eWallet');
    await receiver.waitFor(() => receiver.forEvent(second).length === 1);
    // Both attempts are in flight: the stop waits for them and records them in one statement.
    const schema = stopping.schema;
    await stopping.close();
    receiver.answerAfter(0);
    const reopened = await startTestApp('webhooks-attempt-time', { schema, env: { ...RETRY_ENV, JOBS_ENABLED: 'false' } });
    try {
      const [a, b] = [await eventView(reopened, first), await eventView(reopened, second)];
      expect([a.deliveries.length, b.deliveries.length]).toEqual([1, 1]);
      const ended = (event: typeof a) => Date.parse(event.deliveries[0].attemptedDateTime);
      expect(ended(b) - ended(a)).toBeGreaterThanOrEqual(200);
    } finally {
      await reopened.close();
    }
  });

  it('stores but never sends events of a partner without a webhook', async () => {
    const res = await app.client('secure').post<EventBody>('/v1/webhooks/test', { eventType: 'cardUpdated' });
    expect(res.status).toBe(200);
    expect(res.body.webhookConfigured).toBe(false);
    const event = await eventView(app, res.body.eventId);
    expect(event).toMatchObject({ deliveryStatus: 'notDeliverable', attempts: 0, deliveries: [] });
    const db = await app.db();
    try {
      const { rows } = await db.query(`select count(*)::int as n from ${'pgboss_' + app.schema}.job where data->>'eventId' = $1`, [res.body.eventId]);
      expect(rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  });

  it('retries a failing receiver with backoff: fails twice, then succeeds; the log shows all three attempts', async () => {
    receiver.respond((_webhook, nth) => (nth <= 2 ? 500 : 200));
    const eventId = await sendTest(app, 'cardUpdated');
    await receiver.waitFor(() => receiver.forEvent(eventId).length === 3);
    const event = await waitForStatus(app, eventId, 'delivered');
    const attempts = receiver.forEvent(eventId);
    expect(attempts.map((w) => w.answered)).toEqual([500, 500, 200]);
    expect(attempts.every((w) => w.verified && w.body === attempts[0].body)).toBe(true);
    expect(event.attempts).toBe(3);
    expect(event.deliveries.map((d) => [d.attempt, d.statusCode, d.outcome])).toEqual([
      [1, 500, 'httpStatus'],
      [2, 500, 'httpStatus'],
      [3, 200, 'delivered'],
    ]);
    const db = await app.db();
    try {
      const { rows } = await db.query('select attempt, status_code, url, duration_ms from webhook_deliveries where event_id = $1 order by attempt', [eventId]);
      expect(rows.map((r: { attempt: number; status_code: number }) => [r.attempt, r.status_code])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      expect(rows.every((r: { url: string; duration_ms: number }) => r.url === receiver.url && r.duration_ms >= 0)).toBe(true);
      const outbox = await db.query('select delivered_at, dead, attempts from outbox_events where id = $1', [eventId]);
      expect(outbox.rows[0]).toMatchObject({ dead: false, attempts: 3 });
      expect(outbox.rows[0].delivered_at).not.toBeNull();
    } finally {
      await db.end();
    }
    // The acknowledged event is not sent again.
    expect(receiver.forEvent(eventId)).toHaveLength(3);
  });

  it('gives up after the last configured retry and marks the event failed', async () => {
    receiver.respond(() => 500);
    const eventId = await sendTest(app, 'failedTransfer');
    const event = await waitForStatus(app, eventId, 'failed');
    expect(event.attempts).toBe(4);
    expect(event.deliveries.map((d) => d.statusCode)).toEqual([500, 500, 500, 500]);
    expect(receiver.forEvent(eventId)).toHaveLength(4);
  });

  it('two instances on one database deliver every event exactly once', async () => {
    const twin = await start('webhooks-twin', app.schema);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 20; i += 1) ids.push(await sendTest(i % 2 === 0 ? app : twin, 'transaction'));
      await receiver.waitFor(() => ids.every((id) => receiver.forEvent(id).length >= 1));
      for (const id of ids) await waitForStatus(app, id, 'delivered');
      for (const id of ids) expect(receiver.forEvent(id)).toHaveLength(1);
    } finally {
      await twin.close();
    }
  });

  it('loses no pending event across an app restart', async () => {
    const schema = app.schema;
    await app.close();
    receiver.respond(() => 503);
    // Events whose first attempt failed: their retry is pending in the queue when the app stops.
    const first = await start('webhooks-before-restart', schema, { WEBHOOK_RETRY_DELAYS_MS: '1500' });
    const retried = [await sendTest(first, 'achTransfer'), await sendTest(first, 'achTransfer')];
    await receiver.waitFor(() => retried.every((id) => receiver.forEvent(id).length === 1));
    await first.close();
    // Events written by an instance that runs no workers: never attempted before the restart.
    const producer = await start('webhooks-producer', schema, { JOBS_ENABLED: 'false' });
    const untried = [await sendTest(producer, 'paperCheck'), await sendTest(producer, 'paperCheck')];
    await producer.close();
    expect(untried.map((id) => receiver.forEvent(id).length)).toEqual([0, 0]);
    receiver.respond(() => 200);
    app = await start('webhooks-after-restart', schema);
    await receiver.waitFor(() => [...retried, ...untried].every((id) => receiver.forEvent(id).some((w) => w.answered === 200)));
    for (const id of retried) expect(receiver.forEvent(id).map((w) => w.answered)).toEqual([503, 200]);
    for (const id of untried) expect(receiver.forEvent(id).map((w) => w.answered)).toEqual([200]);
    for (const id of [...retried, ...untried]) {
      expect(receiver.forEvent(id).every((w) => w.verified)).toBe(true);
      await waitForStatus(app, id, 'delivered');
    }
  });
});
