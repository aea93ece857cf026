/**
 * The baselines, in their own process like the service: a bare Fastify app whose `/sql/:plan`
 * route replays a statement plan (see sql-plan.ts) with `pg` directly against the same database
 * (baseline a: with `?reads=<name>`, its selects are the service's own reads recorded during
 * calibration and registered at POST `/sql-reads/:name`; without, trivial ones), whose `/const` route answers a constant (baseline b), and whose
 * `/handwritten/v1/programs/:programCode/enrollments` route does a new enrollment by hand in one
 * transaction on the service's own tables (baseline c, handwritten-enrollment.ts; counters at
 * GET `/handwritten/stats`); (c) of the token and replay scenarios are `/handwritten/oauth2/token`
 * (handwritten-token.ts) and `/handwritten/replay/v1/programs/:programCode/enrollments`
 * (handwritten-replay.ts, on the service's rows with the service's keys) and
 * `/handwritten/user-update/v1/programs/:programCode/accounts/:accountIdentifier/users/:userIdentifier`
 * (handwritten-user-update.ts, the same). `/const-signed` answers the constant after one ES256
 * signature (the token scenario's ceiling, handwritten-token.ts's `SignOnce`). (a) and (b) accept any
 * method and parse a JSON or form body like the service does, then ignore it. Started by run.ts with
 * DATABASE_URL, BENCH_BASELINE_SCHEMA, BENCH_SERVICE_SCHEMA, BENCH_SERVICE_DATA_DIR, DB_POOL_SIZE,
 * BENCH_PARTNER_ID, BENCH_PARTNER_SECRET and BENCH_PARTNER_SCOPE; reports its port over IPC.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { runMigrations } from '../src/infrastructure/database/migrate';
import { KeyStore } from '../src/infrastructure/crypto/key-store';
import { generateKeys, HandwrittenEnrollment } from './handwritten-enrollment';
import { HandwrittenReplay } from './handwritten-replay';
import { HandwrittenToken, SignOnce } from './handwritten-token';
import { HandwrittenUserUpdate } from './handwritten-user-update';
import { nameMarkedStatements } from './named-statements';
import { asBaselineRead, prepareBaselineRows, RecordedRead, replayPlan } from './sql-plan';

const CONSTANT = JSON.stringify({ requestId: 'baseline', responseDetails: [{ code: 0, subCode: 0, description: 'Success' }] });

async function main(): Promise<void> {
  const schema = process.env.BENCH_BASELINE_SCHEMA ?? 'bench_baseline';
  // Pools sized as the service's: DB_POOL_SIZE connections, all kept while idle (its DB_POOL_MIN default).
  const poolSize = Number(process.env.DB_POOL_SIZE ?? 20);
  const pool = new Pool({
    connectionString: process.env.DATABASE_URL,
    max: poolSize,
    min: poolSize,
    options: `-c search_path=${schema}`,
  });
  // Baseline (c)'s statements are marked prepared (handwritten-enrollment.ts); (a′)'s trivial ones are not.
  pool.on('connect', nameMarkedStatements);
  // Baseline (a)'s own pool: the service's tables first (its recorded reads), then bench_rows; its
  // clients run the reads the service prepared as prepared statements, as the service's clients do.
  const planPool = new Pool({
    connectionString: process.env.DATABASE_URL,
    max: poolSize,
    min: poolSize,
    options: `-c search_path=${process.env.BENCH_SERVICE_SCHEMA ?? 'public'},${schema}`,
  });
  planPool.on('connect', nameMarkedStatements);
  const recordedReads = new Map<string, { requests: RecordedRead[][]; next: number }>();
  await prepareBaselineRows(pool, schema);
  // Baseline (c) writes the service's tables: the service's own migrations, in the baseline's schema.
  await runMigrations(process.env.DATABASE_URL ?? '', schema);
  const partnerId = process.env.BENCH_PARTNER_ID ?? 'bench-partner';
  const handwritten = new HandwrittenEnrollment(pool, generateKeys(), partnerId);
  const handwrittenToken = new HandwrittenToken(partnerId, process.env.BENCH_PARTNER_SECRET ?? '', process.env.BENCH_PARTNER_SCOPE ?? '', 'http://127.0.0.1');
  // The replay's (c) reads and decrypts the service's stored answers: the service's sandbox keys, from its data folder.
  const serviceKeys = process.env.BENCH_SERVICE_DATA_DIR ? await KeyStore.from(undefined, true, process.env.BENCH_SERVICE_DATA_DIR) : undefined;
  const handwrittenReplay = serviceKeys ? new HandwrittenReplay(planPool, serviceKeys, partnerId) : undefined;
  // The user update's (c) writes the service's rows (the accounts the service enrolled), encrypted with its keys.
  const handwrittenUserUpdate = serviceKeys ? new HandwrittenUserUpdate(planPool, serviceKeys, partnerId) : undefined;
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const methods = ['GET', 'POST', 'PUT'] as const;
  app.route({
    method: [...methods],
    url: '/const',
    handler: async (_request, reply) => reply.header('content-type', 'application/json').send(CONSTANT),
  });
  const signOnce = await SignOnce.create();
  app.route({
    method: [...methods],
    url: '/const-signed',
    handler: async (_request, reply) => {
      await signOnce.sign();
      return reply.header('content-type', 'application/json').send(CONSTANT);
    },
  });
  app.post('/sql-reads/:name', { bodyLimit: 4 * 1024 * 1024 }, async (request) => {
    const requests = (request.body as RecordedRead[][]).map((reads) => reads.map(asBaselineRead));
    recordedReads.set((request.params as { name: string }).name, { requests, next: 0 });
    return { requests: requests.length };
  });
  /** The next calibration request's reads under `name`, round robin. */
  const readsOf = (name: string | undefined): RecordedRead[] | undefined => {
    const recorded = name === undefined ? undefined : recordedReads.get(name);
    if (!recorded || recorded.requests.length === 0) return undefined;
    return recorded.requests[recorded.next++ % recorded.requests.length];
  };
  app.route({
    method: [...methods],
    url: '/sql/:plan',
    handler: async (request, reply) => {
      const plan = (request.params as { plan: string }).plan.replace(/-/g, '');
      if (!plan) return reply.header('content-type', 'application/json').send(CONSTANT);
      const reads = readsOf((request.query as { reads?: string }).reads);
      const client = await planPool.connect();
      try {
        await replayPlan(client, plan, `baseline-${Date.now()}`, reads);
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
      return reply.header('content-type', 'application/json').send(CONSTANT);
    },
  });
  let handwrittenFailures = 0;
  app.post('/handwritten/v1/programs/:programCode/enrollments', async (request, reply) => {
    try {
      const answer = await handwritten.enroll((request.params as { programCode: string }).programCode, request.body, request.id);
      return reply.code(answer.status).header('content-type', 'application/json').send(answer.body);
    } catch (error) {
      // A schema change the hand-written SQL does not follow shows here (stderr goes to baseline.log).
      if (handwrittenFailures++ < 5) process.stderr.write(`baseline (c) failed: ${(error as Error).stack ?? String(error)}\n`);
      throw error;
    }
  });
  app.get('/handwritten/stats', async () => handwritten.stats);
  app.post('/handwritten/oauth2/token', async (request, reply) => {
    const answer = await handwrittenToken.issue(request.headers.authorization, request.body as Record<string, string> | undefined);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  app.post('/handwritten/replay/v1/programs/:programCode/enrollments', async (request, reply) => {
    if (!handwrittenReplay) return reply.code(503).send({ error: 'BENCH_SERVICE_DATA_DIR not set' });
    const answer = await handwrittenReplay.replay((request.params as { programCode: string }).programCode, request.body);
    return reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(answer.body);
  });
  app.put('/handwritten/user-update/v1/programs/:programCode/accounts/:accountIdentifier/users/:userIdentifier', async (request, reply) => {
    if (!handwrittenUserUpdate) return reply.code(503).send({ error: 'BENCH_SERVICE_DATA_DIR not set' });
    const { programCode, accountIdentifier, userIdentifier } = request.params as Record<string, string>;
    const answer = await handwrittenUserUpdate.update(programCode, accountIdentifier, userIdentifier, request.body);
    return reply.code(answer.status).header('content-type', 'application/json; charset=utf-8').send(answer.body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  process.send?.({ baseline: 'ready', port });
  const stop = async () => {
    await app.close();
    await Promise.all([pool.end(), planPool.end()]);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline server failed: ${(error as Error).message}\n`);
  process.exit(1);
});
