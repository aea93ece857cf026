import type { EnrollmentClient } from '../client/enrollment-client';
import { AppProcess, spawnAppProcess } from './support/app-process-runner';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

interface ListedEvent {
  eventId: string;
  cursor: string;
}
type Page = { events: ListedEvent[]; nextCursor: string | null };

const ENROLL = '/v1/programs/sandbox/enrollments';
/**
 * Writes per writer, with a pause after each: the writers are bounded by count, not by time, so the
 * readers (one call per page) stay near the head of the list on a slow machine too, where the race
 * is. Bounded by time, a fast machine wrote ~3,700 events that the limit=1 reader then had to page
 * through one by one, and a slow CI machine ran out of catch-up time.
 */
const WRITES_PER_WRITER = 25;
const PAUSE_MS = 100;
/** Concurrent writers per instance and kind (webhook test events, enrollments). */
const WRITERS = 3;
/** How long the readers may take to catch up once the writers stop (about 450 events). */
const CATCH_UP_MS = 60_000;

/** Pages the partner's events from the start, from the given instances in turn, and keeps every eventId in the order listed. */
class Reader {
  readonly listed: string[] = [];
  private cursor: string | null = null;
  private turn = 0;

  constructor(
    private readonly clients: readonly EnrollmentClient[],
    readonly limit: number,
  ) {}

  /** One page; at the end of the list it resumes from its last event's cursor (nextCursor is null there). Returns how many events it listed. */
  async page(): Promise<number> {
    const client = this.clients[this.turn++ % this.clients.length] as EnrollmentClient;
    const res = await client.get<Page>(`/v1/webhooks/events?limit=${this.limit}${this.cursor ? `&after=${this.cursor}` : ''}`);
    expect(res.status).toBe(200);
    const { events, nextCursor } = res.body;
    this.listed.push(...events.map((event) => event.eventId));
    if (events.length > 0) this.cursor = nextCursor ?? (events[events.length - 1] as ListedEvent).cursor;
    return events.length;
  }

  /** Pages until every one of `ids` is listed, or the time is up. */
  async catchUp(ids: ReadonlySet<string>, until: number): Promise<void> {
    const listed = new Set(this.listed);
    while ([...ids].some((id) => !listed.has(id)) && Date.now() < until) {
      const before = this.listed.length;
      if ((await this.page()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      this.listed.slice(before).forEach((id) => listed.add(id));
    }
  }

  repeated(): string[] {
    return this.listed.filter((id, i) => this.listed.indexOf(id) !== i);
  }

  /** Committed events the reader paged past without listing: placed before the last one it listed. */
  skipped(ids: ReadonlySet<string>, position: ReadonlyMap<string, number>): string[] {
    const listed = new Set(this.listed);
    const reached = Math.max(...this.listed.map((id) => position.get(id) ?? 0));
    return [...ids].filter((id) => !listed.has(id) && (position.get(id) ?? 0) < reached);
  }

  /** Committed events beyond the last one listed: not a paging fault, but the reader ran out of time. */
  unreached(ids: ReadonlySet<string>, position: ReadonlyMap<string, number>): number {
    const reached = Math.max(...this.listed.map((id) => position.get(id) ?? 0));
    return [...ids].filter((id) => (position.get(id) ?? 0) > reached).length;
  }
}

/**
 * CONTRACT section 11: pages of GET /v1/webhooks/events never repeat or skip an event, even while
 * events are written. Two app instances on one database write events concurrently (webhook test
 * events, one per transaction, and enrollments, two per transaction: accountUpdated and
 * cardUpdated), delivered meanwhile by both instances' pollers (which update the rows), while two
 * readers page (limit=1 and limit=2) from both instances in turn until they have caught up.
 */
describe('Webhook events list under concurrent writers on two instances (e2e)', () => {
  let receiver: WebhookReceiver;
  let app: TestApp;
  let other: AppProcess;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp('webhook-events-concurrent', { webhookUrl: receiver.url, webhookSecret: receiver.secret });
    other = await spawnAppProcess(app);
  }, 120_000);

  afterAll(async () => {
    await other?.stop();
    await app?.close();
    await receiver?.close();
  });

  async function rows<T>(sql: string): Promise<T[]> {
    const db = await app.db();
    try {
      return (await db.query(sql)).rows as T[];
    } finally {
      await db.end();
    }
  }

  it('readers paging with limit=1 and limit=2 list every committed event once: none repeated, none skipped', async () => {
    const clients = [app.client('acme'), other.client('acme')];
    const testEvent = async (client: EnrollmentClient) => (await client.post('/v1/webhooks/test', { eventType: 'transaction' })).status;
    const enrollment = async (client: EnrollmentClient) => (await client.post(ENROLL, EnrollmentRequestFactory.build())).status;

    // The schema is new: eight single events, then an enrollment whose two events are numbered 9
    // and 10, a transaction's pair across a power of ten (as 99 and 100, 999 and 1000 may be below).
    expect(await rows(`select 1 from outbox_events`)).toEqual([]);
    for (let i = 0; i < 8; i += 1) expect(await testEvent(clients[0] as EnrollmentClient)).toBe(200);
    expect(await enrollment(clients[1] as EnrollmentClient)).toBe(200);
    expect(await rows(`select seq::int from outbox_events where event_type <> 'transaction' order by seq`)).toEqual([{ seq: 9 }, { seq: 10 }]);

    const readers = [new Reader(clients, 1), new Reader(clients, 2)];
    const failures: number[] = [];
    const writer = async (client: EnrollmentClient, write: (client: EnrollmentClient) => Promise<number>) => {
      for (let i = 0; i < WRITES_PER_WRITER; i += 1) {
        const status = await write(client);
        if (status !== 200) failures.push(status);
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    };
    let writing = true;
    const writers = Promise.all(
      clients.flatMap((client) => Array.from({ length: WRITERS }, () => [writer(client, testEvent), writer(client, enrollment)]).flat()),
    ).finally(() => (writing = false));
    await Promise.all(
      readers.map(async (reader) => {
        while (writing) await reader.page();
      }),
    );
    await writers;

    // Every event committed by now is listed by each reader before it runs dry.
    // Each event's place in the list's order (its transaction's id, then its sequence number).
    const stored = await rows<{ id: string; place: number }>(
      `select id, (row_number() over (order by tx_id, seq))::int as place from outbox_events where partner_id = 'acme'`,
    );
    const committed = new Set(stored.map((row) => row.id));
    const position = new Map(stored.map((row) => [row.id, row.place]));
    await Promise.all(readers.map((reader) => reader.catchUp(committed, Date.now() + CATCH_UP_MS)));

    expect(failures).toEqual([]);
    expect(committed.size).toBeGreaterThan(100);
    const outcome = (reader: Reader) => ({
      limit: reader.limit,
      repeated: reader.repeated(),
      skipped: reader.skipped(committed, position),
      unreached: reader.unreached(committed, position),
    });
    expect(readers.map(outcome)).toEqual([
      { limit: 1, repeated: [], skipped: [], unreached: 0 },
      { limit: 2, repeated: [], skipped: [], unreached: 0 },
    ]);
  }, 180_000);

  it('an event whose transaction began first but commits last is listed once the transaction commits, not skipped', async () => {
    const client = app.client('acme');
    const reader = new Reader([client], 100);
    await reader.catchUp(
      new Set((await rows<{ id: string }>(`select id from outbox_events where partner_id = 'acme'`)).map((row) => row.id)),
      Date.now() + CATCH_UP_MS,
    );
    const listed = reader.listed.length;

    // A transaction takes its id with an event and stays open while a later one commits its own.
    const held = await app.db();
    try {
      await held.query('begin');
      const [early] = (
        await held.query(
          `insert into outbox_events (id, partner_id, program_code, event_type, payload, dead)
           select gen_random_uuid(), partner_id, program_code, event_type, payload, true from outbox_events where partner_id = 'acme' limit 1
           returning id`,
        )
      ).rows as { id: string }[];
      expect((await client.post('/v1/webhooks/test', { eventType: 'transaction' })).status).toBe(200);
      const [late] = await rows<{ id: string }>(`select id from outbox_events where partner_id = 'acme' order by occurred_at desc, seq desc limit 1`);

      // The later event waits behind the open transaction: listed now, the cursor would pass the earlier one.
      expect(await reader.page()).toBe(0);
      await held.query('commit');
      await reader.catchUp(new Set([early?.id, late?.id] as string[]), Date.now() + CATCH_UP_MS);
      expect(reader.listed.slice(listed)).toEqual([early?.id, late?.id]);
    } finally {
      await held.end();
    }
  }, 120_000);
});
