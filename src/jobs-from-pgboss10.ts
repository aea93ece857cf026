// `npm run jobs:from-pgboss10`: once, with every instance stopped, before the first start on pg-boss
// 12. pg-boss 11 and 12 cannot migrate a pg-boss 10 schema (schema version 24; their migrations start
// at 25), so this moves the jobs: it renames the old schema to `<schema>_v10`, lets pg-boss 12 install
// its own, and inserts every job still to run (created, retry, or active when the instances stopped)
// through pg-boss's public `createQueue` and `insert`, with its id, data and retry settings. Cron
// schedules are not copied: the service schedules its own on start. Reads DATABASE_URL and DB_SCHEMA
// like the service; does nothing when the schema is not pg-boss 10's. Drop `<schema>_v10` afterwards.
import { Client } from 'pg';
import { PgBoss } from 'pg-boss';
import { loadEnv } from './config/env';
import { COMPLETED_KEPT_SECONDS, jobSchemaFor } from './infrastructure/queue/job-queue';

const PGBOSS_10_SCHEMA_VERSION = 24;

interface OldJob {
  id: string;
  name: string;
  data: object | null;
  priority: number;
  retry_limit: number;
  retry_delay: number;
  retry_backoff: boolean;
  start_after: Date;
  singleton_key: string | null;
  expire_seconds: number;
}

export async function moveJobsFromPgBoss10(databaseUrl: string, dbSchema: string): Promise<{ moved: number; queues: number } | null> {
  const schema = jobSchemaFor(dbSchema);
  const old = `${schema}_v10`.slice(0, 63);
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  let jobs: OldJob[];
  try {
    const version = await db
      .query<{ version: number }>(`select version from ${schema}.version`)
      .then((result) => result.rows[0]?.version ?? null)
      .catch(() => null);
    if (version !== PGBOSS_10_SCHEMA_VERSION) return null;
    await db.query(`alter schema ${schema} rename to ${old}`);
    jobs = (
      await db.query<OldJob>(
        `select id, name, data, priority, retry_limit, retry_delay, retry_backoff, start_after, singleton_key,
                extract(epoch from expire_in)::int as expire_seconds
           from ${old}.job where state in ('created', 'retry', 'active') order by created_on`,
      )
    ).rows;
  } finally {
    await db.end();
  }
  const boss = new PgBoss({ connectionString: databaseUrl, schema, migrate: true, supervise: false, schedule: false });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    const names = [...new Set(jobs.map((job) => job.name))];
    for (const name of names) {
      await boss.createQueue(name, { deleteAfterSeconds: COMPLETED_KEPT_SECONDS });
      await boss.insert(
        name,
        jobs
          .filter((job) => job.name === name)
          .map((job) => ({
            id: job.id,
            data: job.data ?? {},
            priority: job.priority,
            retryLimit: job.retry_limit,
            retryDelay: job.retry_delay,
            retryBackoff: job.retry_backoff,
            startAfter: job.start_after,
            singletonKey: job.singleton_key ?? undefined,
            expireInSeconds: Math.max(1, job.expire_seconds),
          })),
      );
    }
    return { moved: jobs.length, queues: names.length };
  } finally {
    await boss.stop({ graceful: false });
  }
}

async function main(): Promise<void> {
  const env = loadEnv();
  if (!env.databaseUrl) throw new Error('Set DATABASE_URL (the service database) to move its pg-boss 10 jobs');
  const result = await moveJobsFromPgBoss10(env.databaseUrl, env.dbSchema);
  process.stdout.write(
    result
      ? `Moved ${result.moved} jobs in ${result.queues} queues to pg-boss 12; the old schema is ${jobSchemaFor(env.dbSchema)}_v10.\n`
      : `${jobSchemaFor(env.dbSchema)} is not a pg-boss 10 schema: nothing to move.\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
