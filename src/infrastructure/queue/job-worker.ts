import type { Logger } from '@nestjs/common';
import { setTimeout as delay } from 'node:timers/promises';
import type { JobWithMetadata, PgBoss } from 'pg-boss';
import type { JobDefinition, JobHandler } from './job-definition';

/** The part of pg-boss a worker uses: its public fetch, complete and fail. */
export type JobSource = Pick<PgBoss, 'fetch' | 'complete' | 'fail'>;

export interface JobWorkerOptions {
  batchSize: number;
  pollingIntervalMs: number;
}

/**
 * A polling worker on pg-boss's public `fetch`, `complete` and `fail`: fetches a batch, runs its
 * jobs concurrently, then records each outcome and awaits it; fetches again at once after a full
 * batch, else after its polling interval. pg-boss's own `work` records a
 * batch's outcome without awaiting it, so a rejection while PostgreSQL restarts went unhandled and
 * ended the process. Here an outcome that cannot be recorded is logged: the job stays active,
 * expires and runs again (handlers are idempotent). A handler still running when its job expires
 * counts as failed, as under pg-boss's `work`.
 */
export class JobWorker<T extends object> {
  private readonly stopping = new AbortController();
  private running?: Promise<void>;

  constructor(
    private readonly source: JobSource,
    private readonly definition: JobDefinition<T>,
    private readonly handler: JobHandler<T>,
    private readonly options: JobWorkerOptions,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops fetching; resolves when the batch in hand, if any, is done and recorded. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { name } = this.definition;
    while (!this.stopping.signal.aborted) {
      const started = Date.now();
      let full = false;
      try {
        const jobs = await this.source.fetch<T>(name, { batchSize: this.options.batchSize, includeMetadata: true });
        if (jobs.length > 0) await this.run(jobs);
        full = jobs.length >= this.options.batchSize;
      } catch (error) {
        this.logger.warn({ job: name, errorName: (error as Error)?.name, errorCode: (error as { code?: string })?.code }, 'job fetch failed');
      }
      // A full batch: more jobs may be due now (a burst of unblock retries), so fetch again at once.
      if (full) continue;
      const rest = this.options.pollingIntervalMs - (Date.now() - started);
      if (rest > 0) await delay(rest, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  private async run(jobs: JobWithMetadata<T>[]): Promise<void> {
    const { name } = this.definition;
    const outcomes = await Promise.allSettled(
      jobs.map((job) => withinSeconds(this.handler(job.data, { id: job.id, retryCount: job.retryCount }), job.expireInSeconds)),
    );
    // Each outcome names the attempt fetched ({ id, retryCount }): once the job has expired and been
    // claimed again, a late outcome leaves the new attempt alone.
    const completed: { id: string; retryCount: number }[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      const job = jobs[index];
      if (outcome.status === 'fulfilled') {
        completed.push({ id: job.id, retryCount: job.retryCount });
        continue;
      }
      const reason = outcome.reason as Error | undefined;
      this.logger.warn({ job: name, jobId: job.id, retryCount: job.retryCount, errorName: reason?.name, message: reason?.message }, 'job failed');
      await this.record('fail', () => this.source.fail(name, { id: job.id, retryCount: job.retryCount }, { errorName: reason?.name ?? 'Error' }));
    }
    if (completed.length > 0) await this.record('complete', () => this.source.complete(name, completed));
  }

  private async record(method: 'complete' | 'fail', write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      const { name: errorName, code: errorCode } = error as Error & { code?: string };
      this.logger.warn({ job: this.definition.name, method, errorName, errorCode }, 'job outcome not recorded; the job will expire and run again');
    }
  }
}

/** The handler's promise, rejected when the job's expiry passes first. */
async function withinSeconds(work: Promise<void>, seconds: number): Promise<void> {
  const expiry = new AbortController();
  try {
    await Promise.race([
      work,
      delay(seconds * 1000, undefined, { signal: expiry.signal }).then(() => {
        throw new Error(`job handler still running after its job expired (${seconds} s)`);
      }),
    ]);
  } finally {
    expiry.abort();
  }
}
