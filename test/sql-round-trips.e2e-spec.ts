import { Client } from 'pg';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/** One statement (one Client#query call): its text, whether pg ran it named, and the round trip it went in. */
interface Trip {
  client: Client;
  text: string;
  named: boolean;
  /**
   * The client's round trips, counted per client (a query on another connection meanwhile, such as
   * the outbox poller's, is not one of the call's); statements issued while an earlier one on the
   * same client still waited for its answer share its round trip (pg's pipeline mode).
   */
  trip: number;
  /** The Client#query call that sent it: statements of one StatementGroup share it (one Sync). */
  sentWith: number;
}

/**
 * The SQL budget of a locked call (ARCHITECTURE.md: a new enrollment in ≤ 10 round trips and one
 * COMMIT), counted on the call's own connection, statement by statement (pg `Client#query` calls):
 * a statement issued while the ones before it on that client still wait for their answers goes in
 * their round trip (the app pool's pipeline mode). The call's connection is the one that ran its
 * `begin`; every statement of the call runs on it, and nothing else does while the call holds it.
 */
describe('SQL round trips per call (e2e, PostgreSQL)', () => {
  let app: TestApp;
  const trips: Trip[] = [];
  let recording = false;

  beforeAll(async () => {
    app = await startTestApp('statement-budget');
    // pg's own query, still called: the spy only records which client sent what.
    const original = Client.prototype.query as (...args: unknown[]) => unknown;
    const waiting = new Map<Client, number>();
    const sent = new Map<Client, number>();
    let queryCalls = 0;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      type Statement = { text?: string; name?: string };
      const config = args[0] as string | (Statement & { statements?: Statement[] }) | undefined;
      const result = original.apply(this, args);
      if (recording && config !== undefined) {
        const pending = waiting.get(this) ?? 0;
        if (pending === 0) sent.set(this, (sent.get(this) ?? 0) + 1);
        queryCalls += 1;
        // A StatementGroup (one Client#query call) is its statements, in one round trip.
        const statements: Statement[] = typeof config === 'string' ? [{ text: config }] : (config.statements ?? [config]);
        for (const statement of statements) {
          trips.push({ client: this, text: statement.text ?? '', named: Boolean(statement.name), trip: sent.get(this) ?? 0, sentWith: queryCalls });
        }
        if (result instanceof Promise) {
          waiting.set(this, pending + 1);
          const answered = () => void waiting.set(this, (waiting.get(this) ?? 1) - 1);
          result.then(answered, answered);
        }
      }
      return result as never;
    });
  });

  afterAll(async () => {
    await app.close();
    jest.restoreAllMocks();
  });

  /** The round trips of `work` on the call's connection (the one that ran the call's `begin`). */
  async function tripsOfCall(work: () => Promise<void>): Promise<Trip[]> {
    trips.length = 0;
    recording = true;
    try {
      await work();
    } finally {
      recording = false;
    }
    const opening = trips.find((trip) => /^begin\b/i.test(trip.text));
    expect(opening).toBeDefined();
    return trips.filter((trip) => trip.client === opening?.client);
  }

  /** A new consumer enrollment's client and its user's path (the user update's). */
  async function enrolledUser() {
    const client = app.client();
    const enrolled = await client.post<{ account?: { accountIdentifier: string }; user?: { userIdentifier: string } }>(
      ENROLL,
      EnrollmentRequestFactory.build(),
    );
    const path = `/v1/programs/sandbox/accounts/${enrolled.body.account?.accountIdentifier}/users/${enrolled.body.user?.userIdentifier}`;
    return { client, path, userId: enrolled.body.user?.userIdentifier };
  }

  const commits = (calls: Trip[]) => calls.filter((trip) => /^\s*commit\b/i.test(trip.text)).length;
  const roundTrips = (calls: Trip[]) => new Set(calls.map((call) => call.trip)).size;
  /** Each statement as `<round trip, counted from the call's first> <its first keyword>`. */
  const shape = (calls: Trip[]) => calls.map((trip) => `${trip.trip - (calls[0]?.trip ?? 0)} ${trip.text.trim().split(/\s+/)[0]?.toLowerCase()}`);

  it('a new enrollment: at most 10 round trips and one COMMIT; BEGIN and the locks share one with the claim, the writes one with the COMMIT', async () => {
    const client = app.client();
    await client.accessToken();
    let status = 0;
    const calls = await tripsOfCall(async () => {
      status = (await client.post(ENROLL, EnrollmentRequestFactory.build())).status;
    });
    expect(status).toBe(200);
    expect(roundTrips(calls)).toBeLessThanOrEqual(10);
    expect(commits(calls)).toBe(1);
    const tripOf = (pattern: RegExp) => calls.find((call) => pattern.test(call.text))?.trip;
    const opening = tripOf(/^begin$/);
    expect(opening).toBeDefined();
    expect(tripOf(/^select set_config\('lock_timeout', '\d+', true\), pg_advisory_xact_lock/)).toBe(opening);
    expect(tripOf(/^with created as \(\s*insert into idempotency_keys/)).toBe(opening);
    expect(tripOf(/^commit$/)).toBe(calls[calls.length - 2]?.trip);
    // The stored-answer look-up, the locks, the claim and the limit counts run as named (prepared) statements.
    expect(calls.filter((trip) => trip.named).length).toBeGreaterThanOrEqual(4);
    // The requestId's record is read once before the locks, by the replay interceptor; the runner takes that read.
    expect(trips.filter((trip) => /^select fingerprint\b/.test(trip.text))).toHaveLength(1);
    if (process.env.SHOW_TRIPS)
      console.log(
        roundTrips(calls),
        calls.map((trip) => `${trip.trip}: ${trip.text.slice(0, 50)}`),
      );
  });

  it('a user update: two round trips, BEGIN with the locks and the locked read, then the writes with COMMIT', async () => {
    const { client, path } = await enrolledUser();
    const update = async (n: number) => {
      let status = 0;
      const calls = await tripsOfCall(async () => {
        status = (await client.put(path, { encryptedUserData: { email: { emailAddress: `budget${n}@example.org` } } })).status;
      });
      expect(status).toBe(200);
      return calls;
    };
    const expected = ['0 begin', '0 select', '0 select', '1 with', '1 commit'];
    expect(shape(await update(1))).toEqual(expected);
    // Once the session has run the lock statement and the locked read (prepared: pg parsed them), BEGIN,
    // the locks and the read go in one Client#query call: one StatementGroup, under one Sync. Calls
    // in a row take the same pooled session (pg-pool reuses the last one released).
    const later = await update(2);
    expect(shape(later)).toEqual(expected);
    expect(new Set(later.slice(0, 3).map((trip) => trip.sentWith)).size).toBe(1);
    expect(later[3]?.sentWith).not.toBe(later[0]?.sentWith);
  });

  it('a business profile update: a locked call too, two round trips, BEGIN with the lock and the locked read, then the update with COMMIT', async () => {
    const client = app.client();
    const enrolled = await client.post<{ account?: { accountIdentifier: string } }>(ENROLL, EnrollmentRequestFactory.business());
    const path = `/v1/programs/sandbox/accounts/${enrolled.body.account?.accountIdentifier}/businessProfile`;
    let status = 0;
    const calls = await tripsOfCall(async () => {
      status = (await client.put(path, { businessData: { businessName: 'Budget Tacos LLC' } })).status;
    });
    expect(status).toBe(200);
    expect(shape(calls)).toEqual(['0 begin', '0 select', '0 select', '1 update', '1 commit']);
    expect(commits(calls)).toBe(1);
  });

  it('writes that fail beside COMMIT: the call answers 500 and changes nothing, and its session serves the next call', async () => {
    const { client, path, userId } = await enrolledUser();
    const email = (n: number) => ({ encryptedUserData: { email: { emailAddress: `grouped${n}@example.org` } } });
    expect((await client.put(path, email(1))).status).toBe(200);
    const db = await app.db();
    const stored = async () => (await db.query('select email_enc from users where id = $1', [userId])).rows[0] as unknown;
    try {
      // A planted failure of the users row's update, the call's batched write.
      await db.query('create table planted_write_failure (on_ boolean)');
      await db.query(`create function planted_write_failure() returns trigger language plpgsql as $$
        begin if exists (select 1 from planted_write_failure) then raise exception 'planted write failure'; end if; return new; end $$`);
      await db.query('create trigger planted_write_failure before update on users for each row execute function planted_write_failure()');
      await db.query('insert into planted_write_failure values (true)');
      const before = await stored();
      let failed: { status: number; body: unknown } | undefined;
      const calls = await tripsOfCall(async () => {
        failed = await client.put(path, email(2));
      });
      expect(failed?.status).toBe(500);
      // The driver's message stays in the service (CONTRACT: no SQL or driver text in an answer).
      expect(JSON.stringify(failed?.body)).not.toContain('planted');
      // The writes and COMMIT pipelined in one round trip: PostgreSQL answered the COMMIT by rolling
      // back, so the call has nothing left to roll back.
      const [write, commit] = calls.slice(-2);
      expect(write?.text).toMatch(/^with\b/);
      expect(commit?.text).toBe('commit');
      expect(commit?.trip).toBe(write?.trip);
      expect(await stored()).toEqual(before);
      // The session was rolled back before it went back to the pool: the next call (pg-pool reuses the
      // session released last) runs in a transaction of its own, not in the aborted one.
      await db.query('delete from planted_write_failure');
      expect((await client.put(path, email(3))).status).toBe(200);
      expect(await stored()).not.toEqual(before);
    } finally {
      await db.query('drop trigger if exists planted_write_failure on users');
      await db.query('drop function if exists planted_write_failure()');
      await db.query('drop table if exists planted_write_failure');
      await db.end();
    }
  });
});
