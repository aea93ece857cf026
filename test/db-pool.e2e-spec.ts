import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { sample, scrape } from './support/metrics';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';
/** pg's idle timeout (node-postgres, Pool `idleTimeoutMillis`, 10 s by default), and a margin. */
const PAST_PG_IDLE_TIMEOUT_MS = 11_500;

/** Connections the process's pools hold, idle and used (the `db_client_connection_count` metric). */
async function connections(app: TestApp): Promise<number> {
  const text = await scrape(app);
  const [idle, used] = ['idle', 'used'].map((state) => sample(text, 'db_client_connection_count', `state="${state}"`));
  expect(idle).toBeDefined();
  expect(used).toBeDefined();
  return (idle as number) + (used as number);
}

/** Enough enrollments at once that the pool opens every connection it may. */
async function burst(app: TestApp): Promise<void> {
  const client = app.client('acme');
  const answers = await Promise.all(Array.from({ length: 16 }, () => client.post(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true })));
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
}

describe('The app pool after a quiet spell (e2e, docs/operations.md "Pool")', () => {
  let kept: TestApp;
  let trimmed: TestApp;

  beforeAll(async () => {
    // No workers: nothing uses the pools but these calls.
    kept = await startTestApp('db-pool-kept', { env: { DB_POOL_SIZE: '4', JOBS_ENABLED: 'false' } });
    trimmed = await startTestApp('db-pool-trimmed', { env: { DB_POOL_SIZE: '4', DB_POOL_MIN: '1', JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    await kept?.close();
    await trimmed?.close();
  });

  it('keeps the connections a burst opened past pg’s idle timeout, down to DB_POOL_MIN (default DB_POOL_SIZE)', async () => {
    await Promise.all([burst(kept), burst(trimmed)]);
    // The metric counts the webhook poller's pool too (the connection its start-up check used).
    const keptBefore = await connections(kept);
    const trimmedBefore = await connections(trimmed);
    expect(keptBefore).toBeGreaterThanOrEqual(4);
    expect(trimmedBefore).toBeGreaterThanOrEqual(4);
    await new Promise((resolve) => setTimeout(resolve, PAST_PG_IDLE_TIMEOUT_MS));
    // The next burst after a quiet spell finds its connections open (no connect, its prepared statements kept).
    expect(await connections(kept)).toBe(keptBefore);
    expect(await connections(trimmed)).toBe(trimmedBefore - 3);
  });
});
