import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboxService } from '../src/modules/events/outbox.service';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';
import { waitUntil } from './support/wait';

interface ListedEvent {
  eventId: string;
  eventType: string;
  occurredDateTime: string;
  accountIdentifier: string | null;
  deliveryStatus: string;
  attempts: number;
  cursor: string;
}
interface Details {
  responseDetails: Array<{ code: number; subCode: number }>;
}
type Page = Details & { events: ListedEvent[]; nextCursor: string | null };

describe('Webhook events list and redelivery (e2e, CONTRACT section 11)', () => {
  let receiver: WebhookReceiver;
  let app: TestApp;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp('webhook-events', { webhookUrl: receiver.url, webhookSecret: receiver.secret });
  });

  afterEach(() => receiver.respond(() => 200));

  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  async function sendTest(eventType = 'transaction', partner: 'acme' | 'secure' = 'acme'): Promise<string> {
    const res = await app.client(partner).post<{ eventId: string }>('/v1/webhooks/test', { eventType });
    expect(res.status).toBe(200);
    return res.body.eventId;
  }

  async function page(query: string, partner: 'acme' | 'secure' = 'acme') {
    return app.client(partner).get<Page>(`/v1/webhooks/events${query}`);
  }

  /** Every event from `after` to the end of the list, page by page; `between` runs after each page. */
  async function walk(after: string | null, limit: number, between: (pageNo: number) => Promise<void> = async () => undefined) {
    const seen: ListedEvent[] = [];
    let cursor = after;
    for (let pageNo = 0; pageNo < 200; pageNo += 1) {
      const res = await page(`?limit=${limit}${cursor ? `&after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.events);
      await between(pageNo);
      if (res.body.nextCursor === null) return { seen, last: seen.length > 0 ? seen[seen.length - 1].cursor : cursor };
      cursor = res.body.nextCursor;
    }
    throw new Error('the list did not end');
  }

  /** Waits until the events are listable: each shows once older transactions of the cluster end. */
  async function listable(ids: string[], query = '?limit=100'): Promise<void> {
    for (let round = 0; round < 40; round += 1) {
      const seen = new Set<string>();
      let cursor: string | null = null;
      do {
        const res: { body: Page } = await page(`${query}${cursor ? `&after=${cursor}` : ''}`);
        res.body.events.forEach((e) => seen.add(e.eventId));
        cursor = res.body.nextCursor;
      } while (cursor);
      if (ids.every((id) => seen.has(id))) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("lists the partner's own events oldest first with the contract fields; default limit 20", async () => {
    const ids = [await sendTest('transaction'), await sendTest('cardUpdated'), await sendTest('statementReady')];
    await sendTest('transaction', 'secure');
    await listable(ids);
    const all = await walk(null, 100);
    const mine = all.seen.filter((e) => ids.includes(e.eventId));
    expect(mine.map((e) => e.eventId)).toEqual(ids);
    expect(mine[1]).toMatchObject({ eventType: 'cardUpdated', accountIdentifier: null });
    expect(new Date(mine[1].occurredDateTime).toISOString()).toBe(mine[1].occurredDateTime);
    expect(['pending', 'delivered']).toContain(mine[1].deliveryStatus);
    expect(typeof mine[1].attempts).toBe('number');
    // The other partner's event is not in acme's list, and acme's are not in its list.
    const theirs = await page('?limit=100', 'secure');
    expect(theirs.body.events.some((e) => ids.includes(e.eventId))).toBe(false);
    expect(all.seen.every((e) => theirs.body.events.every((t) => t.eventId !== e.eventId))).toBe(true);

    const alerts: string[] = [];
    for (let i = 0; i < 20; i += 1) alerts.push(await sendTest('nocAlert'));
    await listable(alerts);
    const first = await page('');
    expect(first.status).toBe(200);
    expect(first.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(first.body.events).toHaveLength(20);
    expect(first.body.nextCursor).toEqual(expect.any(String));
  });

  it('pages never repeat or skip events while new ones arrive between pages, concurrently too', async () => {
    const before = await walk(null, 100);
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push(await sendTest('accountUpdated'));
    const { seen, last } = await walk(before.last, 2, async (pageNo) => {
      if (pageNo < 4) created.push(...(await Promise.all([sendTest('userUpdated'), sendTest('userUpdated'), sendTest('userUpdated')])));
    });
    // An event shows once every older transaction of the cluster has ended (a poller's claim may be
    // in flight): the walk may end a moment early, and resuming from its last cursor finds the rest.
    let cursor = last;
    for (let round = 0; round < 20 && seen.length < created.length; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const more = await walk(cursor, 2);
      seen.push(...more.seen);
      cursor = more.last;
    }
    const ids = seen.map((e) => e.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...created].sort());
    // The five written one after another come in the order they were written.
    expect(ids.slice(0, 5)).toEqual(created.slice(0, 5));
  });

  it('does not skip an event whose transaction began earlier but commits after a later event was listed', async () => {
    const start = await walk(null, 100);
    const dataSource = app.app.get<DataSource>(getDataSourceToken());
    const outbox = app.app.get(OutboxService);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let slowId = '';
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const slow = dataSource.transaction(async (manager) => {
      slowId = await outbox.emit(manager, { partnerId: 'acme', programCode: 'sandbox', accountId: null, eventType: 'eWallet', data: {} });
      written();
      await held;
    });
    await wrote;
    const fastId = await sendTest('billPayment');
    // While the older transaction is open, the later (committed) event waits rather than letting a cursor pass the open one.
    const during = await walk(start.last, 100);
    expect(during.seen.map((e) => e.eventId)).not.toContain(fastId);
    release();
    await slow;
    const after = await walk(during.last, 100);
    const ids = after.seen.map((e) => e.eventId);
    expect(ids).toContain(slowId);
    expect(ids).toContain(fastId);
    expect(ids.indexOf(slowId)).toBeLessThan(ids.indexOf(fastId));
  });

  it('filters by eventType', async () => {
    const paper = [await sendTest('paperCheck'), await sendTest('paperCheck')];
    await sendTest('checkUpdated');
    await listable(paper, '?eventType=paperCheck&limit=100');
    const res = await page('?eventType=paperCheck&limit=100');
    expect(res.status).toBe(200);
    expect(res.body.events.every((e) => e.eventType === 'paperCheck')).toBe(true);
    expect(res.body.events.map((e) => e.eventId)).toEqual(expect.arrayContaining(paper));
    const filteredPages = [];
    let cursor: string | null = null;
    do {
      const next: { body: Page } = await page(`?eventType=paperCheck&limit=1${cursor ? `&after=${cursor}` : ''}`);
      filteredPages.push(...next.body.events.map((e) => e.eventId));
      cursor = next.body.nextCursor;
    } while (cursor);
    expect(filteredPages).toEqual(res.body.events.map((e) => e.eventId));
    const bad = await page('?eventType=notAType');
    expect(bad.status).toBe(400);
    expect(bad.body.responseDetails[0]).toMatchObject({ code: 100, subCode: 5 });
  });

  it('answers 400/100/6 for a bad cursor or limit', async () => {
    await sendTest();
    const { body } = await page('?limit=1');
    const good = body.events[0].cursor;
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?limit=1.5',
      '?limit=-1',
      '?limit=',
      '?limit=1&limit=2',
      // Not the integer's own form: a leading zero is refused like a sign or an exponent.
      '?limit=01',
      '?limit=+5',
      '?limit=1e1',
      '?after=nonsense',
      `?after=${good}.`,
      '?after=',
      `?after=${Buffer.from('1.2.3').toString('base64url')}`,
      `?after=${good}&after=${good}`,
      // Not the service's own encoding: a leading zero (PostgreSQL reads such an xid8 as octal, or fails).
      ...['08.1', '010.1', '09.5', '1.01'].map((text) => `?after=${Buffer.from(text).toString('base64url')}`),
    ]) {
      const res = await page(query);
      expect({ query, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ query, status: 400, detail: { code: 100, subCode: 6 } });
    }
    expect((await page(`?after=${good}&limit=100`)).status).toBe(200);
  });

  it('answers 400/100/2 naming any other query parameter: a misspelt cursor would page from the start for ever', async () => {
    for (const name of ['cursor', 'offset', 'Limit']) {
      const res = await page(`?${name}=1`);
      expect({ status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ status: 400, detail: { code: 100, subCode: 2, field: name } });
    }
  });

  it("takes the OpenAPI's example cursor (a partner trying the documented call gets a page, not 400/100/6)", async () => {
    const document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { example?: string }> }> };
    };
    const example = document.components.schemas.WebhookEventListItem.properties.cursor.example as string;
    expect((await page(`?after=${example}`)).status).toBe(200);
  });

  it('needs scope webhooks', async () => {
    const res = await app.client('acme', { scope: 'enrollments' }).get<Details>('/v1/webhooks/events');
    expect(res.status).toBe(403);
    const redeliver = await app.client('acme', { scope: 'enrollments' }).post<Details>(`/v1/webhooks/events/${await sendTest()}/redeliver`, {});
    expect(redeliver.status).toBe(403);
  });

  it('redelivery makes exactly one more signed attempt of a delivered event', async () => {
    const eventId = await sendTest('cardUpdated');
    await receiver.waitFor(() => receiver.forEvent(eventId).length === 1);
    await waitForStatus(eventId, 'delivered');
    const res = await app.client('acme').post<Details & { event: ListedEvent }>(`/v1/webhooks/events/${eventId}/redeliver`, {});
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({ eventId, eventType: 'cardUpdated', deliveryStatus: 'pending', attempts: 1 });
    await receiver.waitFor(() => receiver.forEvent(eventId).length === 2);
    const event = await waitForStatus(eventId, 'delivered');
    expect(event.attempts).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const deliveries = receiver.forEvent(eventId);
    expect(deliveries).toHaveLength(2);
    expect(deliveries.every((w) => w.verified && w.body === deliveries[0].body)).toBe(true);
  });

  it('a refused redelivery of a delivered event is that one attempt: no retry follows, and the event stays delivered as it was', async () => {
    // Short retry delays, so that a retry that should not come would come within the wait below.
    const quick = await startTestApp('webhook-events-redeliver', {
      webhookUrl: receiver.url,
      webhookSecret: receiver.secret,
      env: { WEBHOOK_RETRY_DELAYS_MS: '100,100,100' },
    });
    try {
      const sent = await quick.client('acme').post<{ eventId: string }>('/v1/webhooks/test', { eventType: 'checkUpdated' });
      const eventId = sent.body.eventId;
      const detail = async () =>
        (
          await quick.client('acme').get<{
            event: {
              deliveryStatus: string;
              attempts: number;
              deliveredDateTime: string | null;
              nextAttemptDateTime: string | null;
              deliveries: Array<{ attempt: number; outcome: string }>;
            };
          }>(`/v1/webhooks/events/${eventId}`)
        ).body.event;
      await waitForStatus(eventId, 'delivered', quick);
      const first = await detail();
      receiver.respond(() => 500);
      const res = await quick.client('acme').post<{ event: ListedEvent }>(`/v1/webhooks/events/${eventId}/redeliver`, {});
      expect(res.status).toBe(200);
      await receiver.waitFor(() => receiver.forEvent(eventId).length === 2);
      await waitUntil(async () => (await detail()).deliveries.length === 2, 5_000, 50);
      // Well past the retry delays: the refused redelivery was the one attempt asked for.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(receiver.forEvent(eventId)).toHaveLength(2);
      expect(await detail()).toMatchObject({
        deliveryStatus: 'delivered',
        attempts: 2,
        deliveredDateTime: first.deliveredDateTime,
        nextAttemptDateTime: null,
        deliveries: [expect.objectContaining({ attempt: 1, outcome: 'delivered' }), expect.objectContaining({ attempt: 2, outcome: 'httpStatus' })],
      });
    } finally {
      await quick.close();
    }
  });

  it('redelivery gives a failed event one more attempt', async () => {
    // A schema of its own: an instance with the default retry delays must not take the retry.
    const failing = await startTestApp('webhook-events-failing', {
      webhookUrl: receiver.url,
      webhookSecret: receiver.secret,
      env: { WEBHOOK_RETRY_DELAYS_MS: '100' },
    });
    try {
      receiver.respond(() => 500);
      const res = await failing.client('acme').post<{ eventId: string }>('/v1/webhooks/test', { eventType: 'eWallet' });
      const eventId = res.body.eventId;
      await receiver.waitFor(() => receiver.forEvent(eventId).length === 2);
      await waitForStatus(eventId, 'failed', failing);
      receiver.respond(() => 200);
      const again = await failing.client('acme').post<{ event: ListedEvent }>(`/v1/webhooks/events/${eventId}/redeliver`, {});
      expect(again.status).toBe(200);
      await receiver.waitFor(() => receiver.forEvent(eventId).length === 3);
      expect((await waitForStatus(eventId, 'delivered', failing)).attempts).toBe(3);
    } finally {
      await failing.close();
    }
  });

  it('a redelivery asked for while an attempt is in flight is one more attempt, whatever that attempt ends in', async () => {
    // One slot per partner: the poller cannot take the redelivery before the attempt in flight settles.
    const held = await startTestApp('webhook-events-in-flight', {
      webhookUrl: receiver.url,
      webhookSecret: receiver.secret,
      env: { WEBHOOK_PARTNER_MAX_IN_FLIGHT: '1', WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_RETRY_DELAYS_MS: '60000' },
    });
    const redeliverWhileInFlight = async (eventType: string, settle: () => void) => {
      const res = await held.client('acme').post<{ eventId: string }>('/v1/webhooks/test', { eventType });
      const eventId = res.body.eventId;
      await receiver.waitFor(() => receiver.forEvent(eventId).length === 1);
      const again = await held.client('acme').post<{ event: ListedEvent }>(`/v1/webhooks/events/${eventId}/redeliver`, {});
      expect(again.body.event).toMatchObject({ deliveryStatus: 'pending', attempts: 1 });
      settle();
      await receiver.waitFor(() => receiver.forEvent(eventId).length === 2, 10_000);
      expect((await waitForStatus(eventId, 'delivered', held)).attempts).toBe(2);
    };
    try {
      // The attempt in flight is acknowledged after the redelivery was asked for.
      receiver.answerAfter(1000);
      await redeliverWhileInFlight('cardUpdated', () => receiver.answerAfter(0));
      // The attempt in flight times out after it; its retry delay (60 s) does not postpone the redelivery.
      receiver.stall(true);
      await redeliverWhileInFlight('eWallet', () => receiver.stall(false));
    } finally {
      receiver.answerAfter(0);
      receiver.stall(false);
      await held.close();
    }
  });

  it("CONTRACT section 3, tenancy: an event of a program the partner's configuration no longer lists is neither listed, shown nor redelivered", async () => {
    const kept = await sendTest();
    const db = await app.db();
    let dropped: string;
    try {
      // As an event written while the partner still had the program, before the configuration dropped it.
      dropped = (
        await db.query(
          `insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at, dead)
           values (gen_random_uuid(), 'acme', 'no-longer-listed', null, 'transaction', '{}', null, true) returning id`,
        )
      ).rows[0].id as string;
    } finally {
      await db.end();
    }
    await waitUntil(async () => (await walk(null, 100)).seen.some((e) => e.eventId === kept), 5_000, 50);
    expect((await walk(null, 100)).seen.map((e) => e.eventId)).not.toContain(dropped);
    const shown = await app.client('acme').get<Details>(`/v1/webhooks/events/${dropped}`);
    expect({ status: shown.status, detail: shown.body.responseDetails[0] }).toMatchObject({ status: 404, detail: { code: 10, subCode: 0 } });
    const redelivered = await app.client('acme').post<Details>(`/v1/webhooks/events/${dropped}/redeliver`, {});
    expect({ status: redelivered.status, detail: redelivered.body.responseDetails[0] }).toMatchObject({ status: 404, detail: { code: 10, subCode: 0 } });
  });

  it("answers 404/10/0 to redeliver an unknown event or another partner's", async () => {
    const theirs = await sendTest('transaction', 'secure');
    for (const id of [theirs, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await app.client('acme').post<Details>(`/v1/webhooks/events/${id}/redeliver`, {});
      expect(res.status).toBe(404);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 10, subCode: 0 });
    }
    const db = await app.db();
    try {
      const { rows } = await db.query('select attempts, dead, next_attempt_at from outbox_events where id = $1', [theirs]);
      expect(rows[0]).toMatchObject({ attempts: 0, dead: true, next_attempt_at: null });
    } finally {
      await db.end();
    }
  });

  it('keeps delivered events listable until they are 30 days old', async () => {
    const eventId = await sendTest('interestPaid');
    await waitForStatus(eventId, 'delivered');
    const db = await app.db();
    try {
      await db.query(`update outbox_events set occurred_at = now() - interval '29 days' where id = $1`, [eventId]);
      const { HousekeepingService } = await import('../src/modules/events/housekeeping.service');
      await app.app.get(HousekeepingService).purgeRetention();
      const listed = await page('?eventType=interestPaid&limit=100');
      expect(listed.body.events.map((e) => e.eventId)).toContain(eventId);
      await db.query(`update outbox_events set occurred_at = now() - interval '31 days' where id = $1`, [eventId]);
      await app.app.get(HousekeepingService).purgeRetention();
      const purged = await page('?eventType=interestPaid&limit=100');
      expect(purged.body.events.map((e) => e.eventId)).not.toContain(eventId);
    } finally {
      await db.end();
    }
  });

  async function waitForStatus(eventId: string, status: string, target: TestApp = app) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await target.client('acme').get<{ event: { deliveryStatus: string; attempts: number } }>(`/v1/webhooks/events/${eventId}`);
      if (res.body.event?.deliveryStatus === status) return res.body.event;
      if (Date.now() > deadline) throw new Error(`event ${eventId} still ${res.body.event?.deliveryStatus}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
});
