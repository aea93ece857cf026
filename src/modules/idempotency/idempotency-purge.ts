import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { defineJob } from '../../infrastructure/queue/job-definition';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { IdempotencyStore } from './idempotency.store';

/** Deletes idempotency keys past IDEMPOTENCY_RETENTION_DAYS. */
export const IDEMPOTENCY_PURGE_JOB = defineJob<Record<string, never>>({
  name: 'idempotency-purge',
  retryLimit: 3,
  retryDelaySeconds: 300,
  expireInSeconds: 600,
});

/** The daily purge of expired requestIds, beside the store it purges; cron ticks are sent by one instance, run by one worker. */
@Injectable()
export class IdempotencyPurge implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdempotencyPurge.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly store: IdempotencyStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.work(IDEMPOTENCY_PURGE_JOB, () => this.purge(), { batchSize: 1, pollingIntervalSeconds: 5 });
    // Daily at 03:17 UTC, off the hour so that many services do not purge at once.
    await this.jobs.schedule(IDEMPOTENCY_PURGE_JOB, '17 3 * * *', {});
  }

  async purge(): Promise<void> {
    const deleted = await this.store.purgeExpired();
    this.logger.log({ deleted }, 'expired idempotency keys purged');
  }
}
