import type { Client } from 'pg';
import { OwnDatabase, startOwnDatabase } from './support/database-control';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const ENROLL = '/v1/programs/sandbox/enrollments';

interface Body {
  responseDetails: Array<{ code: number; subCode: number }>;
  account?: { accountIdentifier: string };
}

/**
 * After a failover, a pooled connection can reach a server that is (or just became) a standby: it
 * answers reads and refuses every write (SQLSTATE 25006). The server is made read-only the way a
 * standby is, for every session at once (default_transaction_read_only through a configuration
 * reload), on a server of this spec's own: the other spec files' database is never made read-only.
 */
describe('A database that turned read-only, as a demoted primary does (e2e)', () => {
  let database: OwnDatabase;
  let app: TestApp;
  let admin: Client;

  async function setReadOnly(on: boolean): Promise<void> {
    await admin.query(on ? 'alter system set default_transaction_read_only = on' : 'alter system reset default_transaction_read_only');
    await admin.query('select pg_reload_conf()');
    // Each backend applies the reload before its next statement; give the signal time to land.
    await new Promise((resolve) => setTimeout(resolve, 300));
  }

  beforeAll(async () => {
    database = await startOwnDatabase('db-read-only');
    app = await startTestApp('db-read-only', { env: { DATABASE_URL: database.url, JOBS_ENABLED: 'false' } });
    admin = await app.db();
    // The last test stops the server under this session: its error is expected, not a crash.
    admin.on('error', () => undefined);
    // This session's own setting outlives the reload, so it can always put the server back.
    await admin.query('set default_transaction_read_only = off');
  });

  afterAll(async () => {
    await setReadOnly(false).catch(() => undefined);
    await admin.end().catch(() => undefined);
    await app.close();
    await database.close();
  });

  it('a write is answered 503/503/2 with Retry-After (not 500), nothing is stored, and the identical retry completes once the server takes writes', async () => {
    const client = app.client();
    const warm = await client.post<Body>(ENROLL, EnrollmentRequestFactory.build());
    expect(warm.status).toBe(200);
    const request = EnrollmentRequestFactory.build();
    await setReadOnly(true);
    try {
      const refused = await client.post<Body>(ENROLL, request, { noRetry: true });
      expect(refused.status).toBe(503);
      expect(refused.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 2 });
      expect(refused.headers.get('retry-after')).toBeTruthy();
    } finally {
      await setReadOnly(false);
    }
    const retried = await client.post<Body>(ENROLL, request);
    expect(retried.status).toBe(200);
    expect(retried.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const { rows } = await admin.query('select count(*)::int as n from accounts where request_id = $1', [request.requestId]);
    expect(rows[0].n).toBe(1);
  });

  async function readiness(): Promise<{ status: number; body: Body & Record<string, unknown> }> {
    const ready = await fetch(`${app.baseUrl}/health/ready`);
    return { status: ready.status, body: (await ready.json()) as Body & Record<string, unknown> };
  }

  it('/health/ready answers 503/503/2 while the server refuses writes, saying so, and 200 once it takes them again', async () => {
    await setReadOnly(true);
    try {
      const ready = await readiness();
      expect(ready.status).toBe(503);
      expect(ready.body.responseDetails[0]).toMatchObject({ code: 503, subCode: 2 });
      expect(ready.body).toMatchObject({ status: 'unavailable', database: 'read-only', migrations: 'applied' });
    } finally {
      await setReadOnly(false);
    }
    const again = await readiness();
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'ok', database: 'up', migrations: 'applied' });
  });

  it('/health/ready says migrations are pending while one recorded as applied is not', async () => {
    const { rows } = await admin.query<{ timestamp: string; name: string }>(
      'delete from migrations where id = (select max(id) from migrations) returning timestamp::text, name',
    );
    try {
      const ready = await readiness();
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'unavailable', database: 'up', migrations: 'pending' });
    } finally {
      await admin.query('insert into migrations (timestamp, name) values ($1, $2)', [rows[0]?.timestamp, rows[0]?.name]);
    }
    expect((await readiness()).status).toBe(200);
  });

  // Last: it stops this spec's own server, and the admin session with it.
  it('/health/ready says the database is down while the server is stopped, and 200 once it is back', async () => {
    await database.stop();
    try {
      const ready = await readiness();
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'unavailable', database: 'down', migrations: 'unknown' });
      expect(JSON.stringify(ready.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminat/i);
    } finally {
      await database.start();
    }
    await waitUntil(async () => (await readiness()).status === 200, 5_000);
  });
});
