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
/** How long the writers write; the readers page all along and then catch up. */
const WRITE_MS = 12_000;
/** Concurrent writers per instance and kind (webhook test events, enrollments). */
const WRITERS = 3;
/** How long the readers may take to catch up once the writers stop. */
const CATCH_UP_MS = 20_000;

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

  skipped(ids: ReadonlySet<string>): string[] {
    const listed = new Set(this.listed);
    return [...ids].filter((id) => !listed.has(id));
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
    const deadline = Date.now() + WRITE_MS;
    const failures: number[] = [];
    const writer = async (client: EnrollmentClient, write: (client: EnrollmentClient) => Promise<number>) => {
      while (Date.now() < deadline) {
        const status = await write(client);
        if (status !== 200) failures.push(status);
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
    const committed = new Set((await rows<{ id: string }>(`select id from outbox_events where partner_id = 'acme'`)).map((row) => row.id));
    await Promise.all(readers.map((reader) => reader.catchUp(committed, Date.now() + CATCH_UP_MS)));

    expect(failures).toEqual([]);
    expect(committed.size).toBeGreaterThan(100);
    expect(readers.map((reader) => ({ limit: reader.limit, repeated: reader.repeated(), skipped: reader.skipped(committed) }))).toEqual([
      { limit: 1, repeated: [], skipped: [] },
      { limit: 2, repeated: [], skipped: [] },
    ]);
  }, 120_000);
});
