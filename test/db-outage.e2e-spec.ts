import { EnrollmentClient } from '../client/enrollment-client';
import { OwnDatabase, startOwnDatabase } from './support/database-control';
import { EnrollmentRequest, EnrollmentRequestFactory } from './support/enrollment-factory';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface EnrollmentBody {
  responseDetails: Array<{ code: number; subCode: number }>;
  account?: { accountIdentifier: string; status: string; accountCycleDay: number | null };
  paymentInstruments?: unknown[];
}

describe('Database outage during a burst of enrollments (e2e)', () => {
  let app: TestApp;
  // A server of this spec's own, stopped mid-burst: the other spec files' database is never touched.
  let database: OwnDatabase;

  beforeAll(async () => {
    database = await startOwnDatabase('db-outage');
    app = await startTestApp('db-outage', { env: { DATABASE_URL: database.url, DB_POOL_SIZE: '20', JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('every request completes or fails cleanly; retries finish the rest; no partial enrollment, no duplicate', async () => {
    // Real waits (scaled down) so that the policy's retries outlast the outage.
    const client = new EnrollmentClient({
      baseUrl: app.baseUrl,
      ...PARTNERS.acme,
      retry: {
        ranges: [
          [200, 400],
          [800, 1200],
          [2500, 3500],
        ],
      },
    });
    await client.accessToken();
    const requests: EnrollmentRequest[] = Array.from({ length: 30 }, () => EnrollmentRequestFactory.build());
    const burst = requests.map(async (request, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 15));
      return client.post<EnrollmentBody>(ENROLL, request);
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    await database.stop();
    await new Promise((resolve) => setTimeout(resolve, 800));
    await database.start();
    const first = await Promise.all(burst);
    for (const answer of first) {
      // Completed, or failed cleanly with a catalogued retryable answer; never a 500.
      expect([200, 503]).toContain(answer.status);
      if (answer.status === 503) expect(answer.body.responseDetails[0].code).toBe(503);
    }
    // The caller resends what did not complete: the identical request finishes it.
    const finals = await Promise.all(requests.map(async (request, i) => (first[i].status === 200 ? first[i] : client.post<EnrollmentBody>(ENROLL, request))));
    for (const answer of finals) {
      expect(answer.status).toBe(200);
      expect(answer.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      expect(answer.body.account?.status).toBe('normal');
    }
    const db = await app.db();
    try {
      const ids = requests.map((r) => r.requestId);
      const { rows } = await db.query(
        `select a.request_id, a.status, a.account_cycle_day,
                (select count(*) from payment_instruments c where c.account_id = a.id)::int as cards,
                (select count(*) from purses p where p.account_id = a.id)::int as purses,
                (select count(*) from users u where u.account_id = a.id)::int as users
           from accounts a where a.request_id = any($1)`,
        [ids],
      );
      expect(rows).toHaveLength(requests.length);
      expect(new Set(rows.map((r: { request_id: string }) => r.request_id)).size).toBe(requests.length);
      for (const row of rows as Array<Record<string, unknown>>) {
        expect(row).toMatchObject({ status: 'normal', cards: 1, purses: 1, users: 1 });
        expect(row.account_cycle_day).not.toBeNull();
      }
    } finally {
      await db.end();
    }
  });
});
