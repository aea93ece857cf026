import { Client } from 'pg';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/** What one Client#query call sent: one round trip to PostgreSQL (its text, and whether pg ran it as a named statement). */
interface Trip {
  client: Client;
  text: string;
  named: boolean;
}

/**
 * The SQL budget of a locked call (ARCHITECTURE.md: a new enrollment in ≤ 10 round trips and one
 * COMMIT), counted on the call's own connection: every pg `Client#query` call is one round trip
 * (the call's BEGIN and locks go as one simple-protocol statement). The call's connection is the
 * one that ran its `begin`; every statement of the call runs on it, and nothing else does while the
 * call holds it.
 */
describe('SQL round trips per call (e2e, PostgreSQL)', () => {
  let app: TestApp;
  const trips: Trip[] = [];
  let recording = false;

  beforeAll(async () => {
    app = await startTestApp('statement-budget');
    // pg's own query, still called: the spy only records which client sent what.
    const original = Client.prototype.query as (...args: unknown[]) => unknown;
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const config = args[0] as string | { text?: string; name?: string } | undefined;
      if (recording && config !== undefined) {
        trips.push({
          client: this,
          text: typeof config === 'string' ? config : (config.text ?? ''),
          named: typeof config === 'object' && Boolean(config.name),
        });
      }
      return original.apply(this, args) as never;
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await app.close();
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

  const commits = (calls: Trip[]) => calls.filter((trip) => /^\s*commit\b/i.test(trip.text)).length;

  it('a new enrollment: at most 10 round trips and one COMMIT, BEGIN and the locks in one of them', async () => {
    const client = app.client();
    await client.accessToken();
    let status = 0;
    const calls = await tripsOfCall(async () => {
      status = (await client.post(ENROLL, EnrollmentRequestFactory.build())).status;
    });
    expect(status).toBe(200);
    expect(calls.length).toBeLessThanOrEqual(10);
    expect(commits(calls)).toBe(1);
    const opening = calls.find((trip) => /^begin\b/i.test(trip.text));
    expect(opening?.text).toMatch(/^begin; select set_config\('lock_timeout', '\d+', true\), pg_advisory_xact_lock/);
    // The stored-answer look-up and the limit counts run as named (prepared) statements.
    expect(calls.filter((trip) => trip.named).length).toBeGreaterThanOrEqual(3);
    if (process.env.SHOW_TRIPS) console.log(calls.map((trip) => trip.text.slice(0, 60)));
  });

  it('a user update: BEGIN with the locks, the locked read, the writes, COMMIT', async () => {
    const client = app.client();
    const enrolled = await client.post<{ account?: { accountIdentifier: string }; user?: { userIdentifier: string } }>(
      ENROLL,
      EnrollmentRequestFactory.build(),
    );
    const path = `/v1/programs/sandbox/accounts/${enrolled.body.account?.accountIdentifier}/users/${enrolled.body.user?.userIdentifier}`;
    let status = 0;
    const calls = await tripsOfCall(async () => {
      status = (await client.put(path, { encryptedUserData: { email: { emailAddress: 'budget@example.org' } } })).status;
    });
    expect(status).toBe(200);
    expect(calls.map((trip) => trip.text.trim().split(/\s+/)[0]?.toLowerCase())).toEqual(['begin;', 'select', 'with', 'commit']);
  });
});
