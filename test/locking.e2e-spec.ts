import { Agent, ClientRequest, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { Client } from 'pg';
import { lockKey } from '../src/infrastructure/database/lock.service';
import { spawnAppProcess, AppProcess } from './support/app-process-runner';
import { EnrollmentRequestFactory, uniqueSsn } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface EnrollmentBody {
  responseDetails: Array<{ code: number; subCode: number }>;
  account?: { accountIdentifier: string };
}

async function accountsForRequest(app: TestApp, requestId: string): Promise<number> {
  const db = await app.db();
  try {
    const { rows } = await db.query(`select count(*)::int as n from accounts where request_id = $1`, [requestId]);
    return (rows[0] as { n: number }).n;
  } finally {
    await db.end();
  }
}

async function accountsForSsn(app: TestApp, requestIds: string[]): Promise<number> {
  const db = await app.db();
  try {
    const { rows } = await db.query(`select count(*)::int as n from accounts where request_id = any($1)`, [requestIds]);
    return (rows[0] as { n: number }).n;
  } finally {
    await db.end();
  }
}

/**
 * Runs `work` against a second app instance (same schema, its own env) while another session
 * holds the advisory lock `lockName`; `release` lets the blocked calls go on.
 */
async function withHeldLock(
  peer: TestApp,
  label: string,
  env: Record<string, string>,
  lockName: string,
  work: (app: TestApp, release: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const other = await startTestApp(label, { schema: peer.schema, env });
  const holder = new Client({ connectionString: process.env.DATABASE_URL });
  await holder.connect();
  try {
    await holder.query('select pg_advisory_lock($1::bigint)', [lockKey(lockName)]);
    await work(other, async () => {
      await holder.query('select pg_advisory_unlock_all()');
    });
  } finally {
    await holder.end();
    await other.close();
  }
}

/** The same, holding the requestId lock of an acme enrollment in sandbox. */
function withHeldRequestLock(
  peer: TestApp,
  label: string,
  env: Record<string, string>,
  requestId: string,
  work: (app: TestApp, release: () => Promise<void>) => Promise<void>,
): Promise<void> {
  return withHeldLock(peer, label, env, `requestId:acme:sandbox:${requestId}`, work);
}

/**
 * A PUT on an account whose lock another session holds: it waits LOCK_WAIT_MS (300 ms here), answers
 * 503/503/1 with Retry-After and changes nothing (`stored` reads the same before and after); once
 * the lock is released, the same request succeeds.
 */
async function putMeetingHeldAccountLock(
  peer: TestApp,
  label: string,
  accountId: string,
  path: string,
  body: unknown,
  stored: () => Promise<unknown>,
): Promise<void> {
  const before = await stored();
  await withHeldLock(peer, label, { LOCK_WAIT_MS: '300' }, `account:${accountId}`, async (waiting, release) => {
    const blocked = await waiting.client().put(path, body, { noRetry: true });
    expect(blocked.status).toBe(503);
    expect(blocked.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 1 });
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await stored()).toEqual(before);
    await release();
    const retried = await waiting.client().put(path, body);
    expect(retried.status).toBe(200);
    expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
  });
}

describe('API locking (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('locking', { env: { DB_POOL_SIZE: '60' } });
  });

  afterAll(async () => {
    await app.close();
  });

  it('50 simultaneous identical requests: one enrollment, 50 equal answers', async () => {
    const client = app.client();
    await client.accessToken();
    const request = EnrollmentRequestFactory.build();
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.post<EnrollmentBody>(ENROLL, request)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    const bodies = new Set(answers.map((a) => JSON.stringify(a.body)));
    expect(bodies.size).toBe(1);
    expect(answers[0].body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    expect(await accountsForRequest(app, request.requestId)).toBe(1);
  });

  it('50 simultaneous requests with one SSN and different requestIds: one account', async () => {
    const client = app.client();
    await client.accessToken();
    const ssn = uniqueSsn();
    const requests = Array.from({ length: 50 }, () => EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn } } }));
    const answers = await Promise.all(requests.map((r) => client.post<EnrollmentBody>(ENROLL, r)));
    const successes = answers.filter((a) => a.body.responseDetails[0].code === 0);
    const declines = answers.filter((a) => a.body.responseDetails[0].code === 2);
    expect(successes).toHaveLength(1);
    expect(declines).toHaveLength(49);
    for (const decline of declines) expect(decline.body.responseDetails[0]).toMatchObject({ code: 2, subCode: 60 });
    expect(
      await accountsForSsn(
        app,
        requests.map((r) => r.requestId),
      ),
    ).toBe(1);
  });

  it('a call meeting a lock waits, then answers 503/503/1 with Retry-After; the retry sees the result', async () => {
    const request = EnrollmentRequestFactory.build();
    await withHeldRequestLock(app, 'locking-wait', { LOCK_WAIT_MS: '300' }, request.requestId, async (waiting, release) => {
      const blocked = await waiting.client().post(ENROLL, request, { noRetry: true });
      expect(blocked.status).toBe(503);
      expect(blocked.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 1 });
      expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await accountsForRequest(app, request.requestId)).toBe(0);
      // Validation comes before locks: an invalid call never waits for them.
      const invalid = await waiting.client().post(ENROLL, { ...request, currency: 'XYZ' }, { noRetry: true });
      expect(invalid.status).toBe(400);
      expect(invalid.body.responseDetails[0]).toMatchObject({ code: 650, subCode: 0 });
      await release();
      const retried = await waiting.client().post<EnrollmentBody>(ENROLL, request);
      expect(retried.status).toBe(200);
      expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    });
  });

  it('a user update meeting its account lock answers 503/503/1 with Retry-After and changes nothing; the retry updates', async () => {
    const client = app.client();
    const enrolled = await client.post<EnrollmentBody & { user?: { userIdentifier: string } }>(ENROLL, EnrollmentRequestFactory.build());
    const accountId = enrolled.body.account?.accountIdentifier as string;
    const userId = enrolled.body.user?.userIdentifier as string;
    const path = `/v1/programs/sandbox/accounts/${accountId}/users/${userId}`;
    const update = { encryptedUserData: { email: { emailAddress: 'held.lock@example.org' } } };
    const stored = async () => {
      const db = await app.db();
      try {
        const user = (await db.query('select email_enc, updated_at from users where id = $1', [userId])).rows[0] as Record<string, unknown>;
        const events = (await db.query(`select count(*)::int as n from outbox_events where account_id = $1 and event_type = 'userUpdated'`, [accountId]))
          .rows[0] as { n: number };
        return { user, events: events.n };
      } finally {
        await db.end();
      }
    };
    const before = await stored();
    await putMeetingHeldAccountLock(app, 'locking-user-wait', accountId, path, update, stored);
    const after = await stored();
    expect(after.user.email_enc).not.toEqual(before.user.email_enc);
    expect(after.events).toBe(before.events + 1);
  });

  it('a business profile update meeting its account lock answers 503/503/1 with Retry-After and changes nothing; the retry updates', async () => {
    const client = app.client();
    const enrolled = await client.post<EnrollmentBody>(ENROLL, EnrollmentRequestFactory.business());
    const accountId = enrolled.body.account?.accountIdentifier as string;
    const path = `/v1/programs/sandbox/accounts/${accountId}/businessProfile`;
    const update = { businessData: { businessName: 'Held Lock Tacos LLC' } };
    const stored = async () => {
      const db = await app.db();
      try {
        return (await db.query('select business_name, updated_at from business_profiles where account_id = $1', [accountId])).rows[0] as Record<
          string,
          unknown
        >;
      } finally {
        await db.end();
      }
    };
    await putMeetingHeldAccountLock(app, 'locking-business-wait', accountId, path, update, stored);
    expect((await stored()).business_name).toBe('Held Lock Tacos LLC');
  });

  it('CONTRACT section 12: a partner has at most PARTNER_MAX_IN_FLIGHT locked calls in flight; the next answers 503/503/3 with Retry-After, other partners are not held back', async () => {
    const request = EnrollmentRequestFactory.build();
    await withHeldRequestLock(app, 'locking-cap', { PARTNER_MAX_IN_FLIGHT: '2', LOCK_WAIT_MS: '10000' }, request.requestId, async (capped, release) => {
      // Two identical calls wait on the held lock, so two of acme's calls are in flight.
      const waiting = [capped.client().post<EnrollmentBody>(ENROLL, request), capped.client().post<EnrollmentBody>(ENROLL, request)];
      await new Promise((resolve) => setTimeout(resolve, 500));
      const third = await capped.client().post(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true });
      expect(third.status).toBe(503);
      expect(third.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 3 });
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
      // CONTRACT section 6: the field rules come before anything is looked up or locked, so a call
      // that can only fail them answers their 400 whether the cap is full or not (not 503/3, which a
      // partner would retry).
      const invalid = await capped.client().post(ENROLL, { ...EnrollmentRequestFactory.build(), currency: 'XYZ' }, { noRetry: true });
      expect(invalid.status).toBe(400);
      expect(invalid.body.responseDetails[0]).toMatchObject({ code: 650, subCode: 0 });
      const otherPartner = await capped.client('globex').post<EnrollmentBody>(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true });
      expect(otherPartner.status).toBe(200);
      await release();
      const [first, second] = await Promise.all(waiting);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.body.account?.accountIdentifier).toBe(first.body.account?.accountIdentifier);
      const after = await capped.client().post(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true });
      expect(after.status).toBe(200);
    });
  });

  it("CONTRACT section 12: the cap holds from a call's first database read: with the database stuck, one partner holds at most PARTNER_MAX_IN_FLIGHT pooled connections", async () => {
    const capped = await startTestApp('locking-cap-read', { env: { PARTNER_MAX_IN_FLIGHT: '1', LOCK_WAIT_MS: '10000' } });
    const holder = await capped.db();
    // pg_stat_activity is read once per transaction: the observer is another session.
    const observer = await capped.db();
    try {
      // Every read of a requestId's record now waits, the replay interceptor's included.
      await holder.query('begin');
      await holder.query(`lock table "${capped.schema}".idempotency_keys in access exclusive mode`);
      const calls = [0, 1, 2, 3].map(() => capped.client().post<EnrollmentBody>(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true }));
      const waitingOnTable = async () =>
        Number(
          (await observer.query(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%idempotency_keys%'`)).rows[0]
            .n,
        );
      await waitUntil(async () => (await waitingOnTable()) >= 1, 10_000, 20);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await waitingOnTable()).toBe(1);
      await holder.query('commit');
      const answers = await Promise.all(calls);
      const outcomes = answers.map((res) => `${res.status} ${res.body.responseDetails[0]?.code}/${res.body.responseDetails[0]?.subCode}`).sort();
      expect(outcomes).toEqual(['200 0/0', '503 503/3', '503 503/3', '503 503/3']);
    } finally {
      await holder.end();
      await observer.end();
      await capped.close();
    }
  });

  it('CONTRACT section 12: a request that cannot finish in REQUEST_TIMEOUT_MS answers 503/503/2 with Retry-After; the identical retry completes it once', async () => {
    const request = EnrollmentRequestFactory.build();
    await withHeldRequestLock(app, 'locking-timeout', { REQUEST_TIMEOUT_MS: '800', LOCK_WAIT_MS: '10000' }, request.requestId, async (slow, release) => {
      const started = Date.now();
      const timedOut = await slow.client().post(ENROLL, request, { noRetry: true });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(timedOut.status).toBe(503);
      expect(timedOut.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 2 });
      expect(timedOut.headers.get('retry-after')).toMatch(/^\d+$/);
      await release();
      const retried = await slow.client().post<EnrollmentBody>(ENROLL, request);
      expect(retried.status).toBe(200);
      expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      expect(await accountsForRequest(app, request.requestId)).toBe(1);
    });
  });

  /**
   * A second process gets an enrollment whose requestId lock another session holds, so the call
   * waits; the client goes away (`abandon`) or stays; the process gets SIGTERM, then the lock is
   * released. Returns the HTTP status the client got (undefined when it went away) and how long the
   * process took to exit after the release.
   */
  async function stopWhileCallWaits(request: ReturnType<typeof EnrollmentRequestFactory.build>, abandon: boolean) {
    const dying = await spawnAppProcess(app, { LOCK_WAIT_MS: '10000' });
    const keepAlive = new Agent({ keepAlive: true });
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      const signedKey = lockKey(`requestId:acme:sandbox:${request.requestId}`);
      await holder.query('select pg_advisory_lock($1::bigint)', [signedKey]);
      // pg_locks shows the key as two unsigned 32-bit halves.
      const key = BigInt.asUintN(64, BigInt(signedKey));
      const token = await dying.client().accessToken();
      // node:http, so that going away is certain: the socket is destroyed, not handed back to a pool.
      const body = JSON.stringify(request);
      let outgoing: ClientRequest | undefined;
      const sent = new Promise<number | undefined>((resolve) => {
        outgoing = httpRequest(
          `${dying.baseUrl}${ENROLL}`,
          {
            method: 'POST',
            agent: keepAlive,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode));
          },
        );
        outgoing.on('error', () => resolve(undefined));
        outgoing.end(body);
      });
      const waitingForKey = `select 1 from pg_locks where locktype = 'advisory' and not granted and classid = $1::bigint::oid and objid = $2::bigint::oid`;
      await waitUntil(async () => (await holder.query(waitingForKey, [(key >> 32n).toString(), (key & 0xffffffffn).toString()])).rows.length > 0, 10_000, 20);
      if (abandon) outgoing?.destroy();
      const stopped = dying.stop();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const released = Date.now();
      await holder.query('select pg_advisory_unlock_all()');
      const answer = await sent;
      await stopped;
      return { status: abandon ? undefined : answer, exitMs: Date.now() - released };
    } finally {
      keepAlive.destroy();
      await holder.end();
      await dying.stop();
    }
  }

  async function answered(requestId: string): Promise<boolean[]> {
    const db = await app.db();
    try {
      const { rows } = await db.query(`select response_body is not null as answered from idempotency_keys where request_id = $1`, [requestId]);
      return rows.map((row: { answered: boolean }) => row.answered);
    } finally {
      await db.end();
    }
  }

  it('SIGTERM while a call runs on after its HTTP client went away: the process closes its pool only once the call completed, once', async () => {
    const request = EnrollmentRequestFactory.build();
    await stopWhileCallWaits(request, true);
    expect(await accountsForRequest(app, request.requestId)).toBe(1);
    expect(await answered(request.requestId)).toEqual([true]);
  });

  it('SIGTERM while a call waits on a keep-alive connection: the client gets its answer and the process exits without waiting for the connection to time out', async () => {
    const request = EnrollmentRequestFactory.build();
    const { status, exitMs } = await stopWhileCallWaits(request, false);
    expect(status).toBe(200);
    expect(exitMs).toBeLessThan(5000);
    expect(await accountsForRequest(app, request.requestId)).toBe(1);
  });

  it("a request that reaches a closing process (on a connection kept busy by a waiting call) gets the envelope's 503/503/2 with X-Request-Id and Retry-After", async () => {
    const request = EnrollmentRequestFactory.build();
    const dying = await spawnAppProcess(app, { LOCK_WAIT_MS: '10000' });
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    const socket = connect(Number(new URL(dying.baseUrl).port), '127.0.0.1');
    try {
      const signedKey = lockKey(`requestId:acme:sandbox:${request.requestId}`);
      await holder.query('select pg_advisory_lock($1::bigint)', [signedKey]);
      const key = BigInt.asUintN(64, BigInt(signedKey));
      const token = await dying.client().accessToken();
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const body = JSON.stringify(request);
      const host = new URL(dying.baseUrl).host;
      socket.write(
        `POST ${ENROLL} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      const waitingForKey = `select 1 from pg_locks where locktype = 'advisory' and not granted and classid = $1::bigint::oid and objid = $2::bigint::oid`;
      await waitUntil(async () => (await holder.query(waitingForKey, [(key >> 32n).toString(), (key & 0xffffffffn).toString()])).rows.length > 0, 10_000, 20);
      const stopped = dying.stop();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The same connection, pipelined behind the waiting call: it reaches the server while it closes.
      // Its answer names the body's requestId, the request's id (CONTRACT section 1), not the header's.
      const late = JSON.stringify(EnrollmentRequestFactory.build({ requestId: 'closing-probe-1' }));
      socket.write(
        `POST ${ENROLL} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nX-Request-Id: closing-header-id\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(late)}\r\n\r\n${late}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await holder.query('select pg_advisory_unlock_all()');
      await waitUntil(async () => (received.match(/HTTP\/1\.1 /g) ?? []).length >= 2, 10_000, 20);
      await stopped;
      const second = received.slice(received.lastIndexOf('HTTP/1.1 '));
      const [head = '', text = ''] = second.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 503 /);
      expect(head).toMatch(/\r\nx-request-id: closing-probe-1\r\n/i);
      expect(head).toMatch(/\r\nretry-after: \d+\r\n/i);
      expect(head).toMatch(/\r\ncache-control: no-store\r\n/i);
      const answer = JSON.parse(text.includes('{') ? text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1) : '{}') as {
        requestId?: string;
        responseDetails?: unknown;
      };
      expect(answer).toEqual({
        requestId: 'closing-probe-1',
        responseDetails: [expect.objectContaining({ code: 503, subCode: 2, description: 'Service temporarily unavailable; retry later' })],
      });
      // The waiting call itself finished and was answered first.
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      socket.destroy();
      await holder.end();
      await dying.stop();
    }
  });

  describe('across two app processes sharing one database', () => {
    let other: AppProcess;

    beforeAll(async () => {
      other = await spawnAppProcess(app, { DB_POOL_SIZE: '60' });
    });

    afterAll(async () => {
      await other.stop();
    });

    it('identical requests split across both processes: one enrollment, equal answers', async () => {
      const here = app.client();
      const there = other.client();
      await Promise.all([here.accessToken(), there.accessToken()]);
      const request = EnrollmentRequestFactory.build();
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? here : there).post<EnrollmentBody>(ENROLL, request)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(new Set(answers.map((a) => a.body.account?.accountIdentifier)).size).toBe(1);
      expect(await accountsForRequest(app, request.requestId)).toBe(1);
    });

    it('one SSN, different requestIds, split across both processes: one account', async () => {
      const here = app.client();
      const there = other.client();
      const ssn = uniqueSsn();
      const requests = Array.from({ length: 40 }, () => EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn } } }));
      const answers = await Promise.all(requests.map((r, i) => (i % 2 ? here : there).post<EnrollmentBody>(ENROLL, r)));
      expect(answers.filter((a) => a.body.responseDetails[0].code === 0)).toHaveLength(1);
      expect(
        await accountsForSsn(
          app,
          requests.map((r) => r.requestId),
        ),
      ).toBe(1);
    });
  });
});
