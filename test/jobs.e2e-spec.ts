import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { defineJob, deterministicJobId } from '../src/infrastructure/queue/job-definition';
import { JobQueue } from '../src/infrastructure/queue/job-queue';
import { IDEMPOTENCY_PURGE_JOB } from '../src/modules/idempotency/idempotency-purge';
import { OutboxService } from '../src/modules/events/outbox.service';
import { startTestApp, TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

const EFFECT_JOB = defineJob<{ key: string; failFirst?: boolean }>({ name: 'test-effect', retryLimit: 3, retryDelaySeconds: 0, expireInSeconds: 30 });

/** A handler whose every run leaves one row: a job done twice shows up as two rows. */
function effectHandler(app: TestApp, instance: string) {
  const dataSource = app.app.get<DataSource>(getDataSourceToken());
  return async (data: { key: string; failFirst?: boolean }, context: { id: string; retryCount: number }) => {
    await dataSource.query('insert into job_effects (job_id, key, instance, retry_count) values ($1, $2, $3, $4)', [
      context.id,
      data.key,
      instance,
      context.retryCount,
    ]);
    // Slow enough that two instances really compete for the queue.
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (data.failFirst && context.retryCount === 0) throw new Error('first run fails on purpose');
  };
}

describe('Durable jobs (e2e)', () => {
  let app: TestApp;
  let db: Awaited<ReturnType<TestApp['db']>>;

  const effects = async (key: string) =>
    (await db.query('select job_id, instance, retry_count from job_effects where key = $1 order by id', [key])).rows as Array<{
      job_id: string;
      instance: string;
      retry_count: number;
    }>;

  beforeAll(async () => {
    app = await startTestApp('jobs');
    db = await app.db();
    await db.query(
      'create table job_effects (id bigserial primary key, job_id uuid not null, key text not null, instance text not null, retry_count int not null)',
    );
  });

  afterAll(async () => {
    await db.end();
    await app.close();
  });

  it('keeps pg-boss in a schema of its own per service schema', async () => {
    const { rows } = await db.query('select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = $2', [
      `pgboss_${app.schema}`,
      'job',
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('two instances on one database run a queue of jobs with no job done twice', async () => {
    const twin = await startTestApp('jobs-twin', { schema: app.schema });
    try {
      await app.app.get(JobQueue).work(EFFECT_JOB, effectHandler(app, 'one'));
      await twin.app.get(JobQueue).work(EFFECT_JOB, effectHandler(twin, 'two'));
      const producer = app.app.get(JobQueue);
      for (let i = 0; i < 60; i += 1) await producer.send(EFFECT_JOB, { key: 'queue' });
      await waitUntil(async () => (await effects('queue')).length >= 60);
      // Settle: a double run would add rows after the 60th.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const rows = await effects('queue');
      expect(rows).toHaveLength(60);
      expect(new Set(rows.map((r) => r.job_id)).size).toBe(60);
      expect(rows.every((r) => r.retry_count === 0)).toBe(true);
    } finally {
      await twin.close();
    }
  });

  it('retries a job whose handler failed, once per failure', async () => {
    await app.app.get(JobQueue).send(EFFECT_JOB, { key: 'retry', failFirst: true });
    await waitUntil(async () => (await effects('retry')).length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await effects('retry')).map((r) => r.retry_count)).toEqual([0, 1]);
  });

  it('drops a second send with the same deterministic id', async () => {
    const queue = app.app.get(JobQueue);
    const id = deterministicJobId('test', randomUUID());
    expect(await queue.send(EFFECT_JOB, { key: 'dedupe' }, { id, startAfterMs: 60_000 })).toBe(id);
    expect(await queue.send(EFFECT_JOB, { key: 'dedupe' }, { id, startAfterMs: 60_000 })).toBeNull();
  });

  it('enqueues inside a transaction: a rollback leaves neither the job nor the outbox event', async () => {
    const dataSource = app.app.get<DataSource>(getDataSourceToken());
    const queue = app.app.get(JobQueue);
    const outbox = app.app.get(OutboxService);
    const jobId = deterministicJobId('rolled-back', randomUUID());
    let eventId = '';
    await expect(
      dataSource.transaction(async (manager) => {
        await queue.send(EFFECT_JOB, { key: 'rolled-back' }, { id: jobId }, manager);
        eventId = await outbox.emit(manager, { partnerId: 'acme', programCode: 'sandbox', accountId: null, eventType: 'transaction', data: {} });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await queue.state(EFFECT_JOB, jobId)).toBeNull();
    expect((await db.query('select count(*)::int as n from outbox_events where id = $1', [eventId])).rows[0].n).toBe(0);

    const committedId = deterministicJobId('committed', randomUUID());
    await dataSource.transaction((manager) => queue.send(EFFECT_JOB, { key: 'committed' }, { id: committedId }, manager));
    await waitUntil(async () => (await effects('committed')).length === 1);
    expect((await effects('committed'))[0].job_id).toBe(committedId);
  });

  it('emit refuses to run outside a transaction (the event would not be atomic with the change)', async () => {
    const dataSource = app.app.get<DataSource>(getDataSourceToken());
    await expect(
      app.app.get(OutboxService).emit(dataSource.manager, { partnerId: 'acme', programCode: 'sandbox', accountId: null, eventType: 'transaction', data: {} }),
    ).rejects.toThrow(/inside the transaction/);
  });

  it('schedules the daily idempotency-key purge, whose job deletes expired keys only', async () => {
    const schedules = await db.query(`select name, cron, timezone from pgboss_${app.schema}.schedule`);
    expect(schedules.rows).toEqual(expect.arrayContaining([{ name: 'idempotency-purge', cron: '17 3 * * *', timezone: 'UTC' }]));
    const insert = `insert into idempotency_keys (partner_id, program_code, request_id, operation, fingerprint, expires_at) values ('acme', 'sandbox', $1, 'test', 'f', $2)`;
    await db.query(insert, ['purge-expired', new Date(Date.now() - 60_000)]);
    await db.query(insert, ['purge-kept', new Date(Date.now() + 86_400_000)]);
    await app.app.get(JobQueue).send(IDEMPOTENCY_PURGE_JOB, {});
    const remaining = async () =>
      (await db.query(`select request_id from idempotency_keys where request_id like 'purge-%' order by request_id`)).rows.map(
        (r: { request_id: string }) => r.request_id,
      );
    await waitUntil(async () => (await remaining()).length === 1, 30_000);
    expect(await remaining()).toEqual(['purge-kept']);
  });

  it('a job scheduled before a restart runs after it', async () => {
    const schema = app.schema;
    await app.app.get(JobQueue).send(EFFECT_JOB, { key: 'restart' }, { startAfterMs: 3000 });
    await app.close();
    app = await startTestApp('jobs-restarted', { schema });
    await app.app.get(JobQueue).work(EFFECT_JOB, effectHandler(app, 'restarted'));
    await waitUntil(async () => (await effects('restart')).length === 1);
    expect((await effects('restart'))[0].instance).toBe('restarted');
  });
});
