import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { type Db, PgBoss } from 'pg-boss';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Metrics } from '../metrics/metrics';
import { BackgroundWork } from './background-work';
import { JobDefinition, JobHandler, SendJobOptions, WorkOptions } from './job-definition';
import { JobWorker } from './job-worker';

const DEFAULT_WORK: Required<WorkOptions> = { batchSize: 5, pollingIntervalSeconds: 0.5 };
const STOP_TIMEOUT_MS = 15_000;
const DEADLOCK = '40P01';
export const COMPLETED_KEPT_SECONDS = 7 * 86_400;

/** pg-boss keeps its tables in a schema of its own, one per service schema (tests use many). */
export function jobSchemaFor(dbSchema: string): string {
  return `pgboss_${dbSchema}`.slice(0, 63);
}

/**
 * The durable job queue (pg-boss on the service's PostgreSQL). Every instance can enqueue; only
 * instances with JOBS_ENABLED run workers, maintenance and cron. pg-boss fetches with
 * `FOR UPDATE SKIP LOCKED`, so one job is handed to one worker at a time across instances.
 */
@Injectable()
export class JobQueue implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(JobQueue.name);
  private readonly boss: PgBoss;
  private readonly ensured = new Map<string, Promise<void>>();
  private queueCreation: Promise<unknown> = Promise.resolve();
  private starting?: Promise<void>;
  private stopped = false;
  private readonly workers: Array<Pick<JobWorker<object>, 'stop'>> = [];

  constructor(
    private readonly config: AppConfig,
    metrics: Metrics,
    private readonly background: BackgroundWork,
  ) {
    const { databaseUrl, dbSchema, jobsEnabled } = config.env;
    if (!databaseUrl) throw new Error('DATABASE_URL must be resolved before the job queue starts');
    this.boss = new PgBoss({
      connectionString: databaseUrl,
      schema: jobSchemaFor(dbSchema),
      application_name: 'enrollment-service-jobs',
      max: 4,
      migrate: true,
      supervise: jobsEnabled,
      schedule: jobsEnabled,
      maintenanceIntervalSeconds: 30,
      // pg-boss's own spans (a trace for every fetch of every queue, each with its SQL) are off: the
      // service traces HTTP requests, their statements and webhook attempts, not background polling
      // (operations-observability.md); idle, an instance exported a couple of traces a second.
      openTelemetry: { enabled: false },
    });
    // An EventEmitter 'error' without a listener would crash the process.
    this.boss.on('error', (error: Error) => this.logger.warn({ errorName: error.name, message: error.message }, 'job queue error'));
    metrics.observe('pgboss_queue_depth', 'Jobs waiting in each pg-boss queue this instance uses (created or due for retry)', ['queue'], () => this.depths());
  }

  /**
   * One count per queue this instance created or works: jobs before `active` (created or due for
   * retry), pg-boss's getQueueStats with `force`, a fresh count it reuses for up to a minute.
   */
  private async depths(): Promise<{ labels: { queue: string }; value: number }[]> {
    if (!this.starting || this.stopped) return [];
    const names = [...this.ensured.keys()];
    const stats = await Promise.all(names.map((name) => this.boss.getQueueStats(name, { force: true })));
    return names.map((queue, index) => ({ labels: { queue }, value: stats[index]?.[0]?.queuedCount ?? 0 }));
  }

  get workersEnabled(): boolean {
    return this.config.env.jobsEnabled;
  }

  onModuleInit(): Promise<void> {
    return this.start();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.stopped || !this.starting) return;
    this.stopped = true;
    await this.starting.catch(() => undefined);
    // Graceful: in-flight handlers finish and are recorded; past the timeout their jobs expire and run elsewhere.
    await Promise.race([Promise.all(this.workers.map((worker) => worker.stop())), new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS).unref())]);
    await this.boss.stop({ graceful: true, timeout: STOP_TIMEOUT_MS });
  }

  start(): Promise<void> {
    this.starting ??= this.boss.start().then(() => undefined);
    return this.starting;
  }

  /**
   * Enqueues a job. With `manager` (inside a TypeORM transaction) the job row is written on the
   * transaction's connection, so it exists exactly when the transaction commits.
   */
  async send<T extends object>(definition: JobDefinition<T>, data: T, options: SendJobOptions = {}, manager?: EntityManager): Promise<string | null> {
    await this.ensureQueue(definition.name);
    return this.boss.send(definition.name, data, {
      id: options.id,
      startAfter: options.startAfterMs && options.startAfterMs > 0 ? options.startAfterMs / 1000 : undefined,
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: definition.retryBackoff ?? false,
      expireInSeconds: definition.expireInSeconds,
      db: manager?.queryRunner ? transactionDb(manager) : undefined,
    });
  }

  /** Several jobs of one definition in one statement, on the caller's transaction (pg-boss `insert`). */
  async sendMany<T extends object>(definition: JobDefinition<T>, jobs: ReadonlyArray<{ id: string; data: T }>, manager: EntityManager): Promise<void> {
    if (jobs.length === 0) return;
    await this.ensureQueue(definition.name);
    await this.boss.insert(
      definition.name,
      jobs.map((job) => ({
        id: job.id,
        data: job.data,
        retryLimit: definition.retryLimit,
        retryDelay: definition.retryDelaySeconds,
        retryBackoff: definition.retryBackoff ?? false,
        expireInSeconds: definition.expireInSeconds,
      })),
      { db: transactionDb(manager) },
    );
  }

  /**
   * Runs `handler` for each job of the definition, once the instance serves (BackgroundWork); a
   * handler that throws fails that job only (retried per definition).
   */
  async work<T extends object>(definition: JobDefinition<T>, handler: JobHandler<T>, options: WorkOptions = {}): Promise<void> {
    if (!this.workersEnabled || this.stopped) return;
    await this.ensureQueue(definition.name);
    const { batchSize, pollingIntervalSeconds } = { ...DEFAULT_WORK, ...options };
    const worker = new JobWorker(this.boss, definition, handler, { batchSize, pollingIntervalMs: pollingIntervalSeconds * 1000 }, this.logger);
    this.workers.push(worker);
    this.background.whenServing(() => worker.start());
  }

  /** A cron schedule (UTC), kept in the database: one instance sends each tick's job. */
  async schedule<T extends object>(definition: JobDefinition<T>, cron: string, data: T): Promise<void> {
    if (!this.workersEnabled || this.stopped) return;
    await this.ensureQueue(definition.name);
    await this.boss.schedule(definition.name, cron, data, {
      tz: 'UTC',
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      expireInSeconds: definition.expireInSeconds,
    });
  }

  /** A cron job (UTC) and its one-at-a-time worker: each tick is sent by one instance and run by one worker. */
  async recurring(definition: JobDefinition<Record<string, never>>, cron: string, run: () => Promise<unknown>): Promise<void> {
    await this.work(definition, async () => void (await run()), { batchSize: 1, pollingIntervalSeconds: 5 });
    await this.schedule(definition, cron, {});
  }

  /** Drops a cron schedule (a retired job): without it, ticks would keep queueing jobs nobody works. */
  async unschedule(name: string): Promise<void> {
    if (!this.workersEnabled || this.stopped) return;
    await this.start();
    await this.boss.unschedule(name);
  }

  /** The state of a job (tests and diagnostics). */
  async state(definition: JobDefinition<object>, id: string): Promise<string | null> {
    const [job] = await this.boss.findJobs(definition.name, { id });
    return job?.state ?? null;
  }

  private ensureQueue(name: string): Promise<void> {
    let ensured = this.ensured.get(name);
    if (!ensured) {
      // One at a time: concurrent create_queue calls (partition DDL) deadlock each other.
      ensured = this.queueCreation.then(() => this.start()).then(() => this.createQueue(name));
      this.queueCreation = ensured.catch(() => undefined);
      ensured.catch(() => this.ensured.delete(name));
      this.ensured.set(name, ensured);
    }
    return ensured;
  }

  /** Another instance creating queues at the same moment can still deadlock us: retry a few times. */
  private async createQueue(name: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        // Completed jobs are only an audit aid (outbox and care tables keep the business record): kept 7 days.
        await this.boss.createQueue(name, { deleteAfterSeconds: COMPLETED_KEPT_SECONDS });
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== DEADLOCK || attempt >= 5) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
      }
    }
  }
}

/** pg-boss's executor contract on the connection of a TypeORM transaction. */
function transactionDb(manager: EntityManager): Db {
  return {
    async executeSql(text: string, values: unknown[]) {
      const runner = manager.queryRunner;
      if (!runner) throw new Error('transactionDb needs a transactional EntityManager');
      const result = (await runner.query(text, values, true)) as { records?: unknown[] };
      return { rows: result.records ?? [] };
    },
  };
}
