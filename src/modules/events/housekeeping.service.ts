import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { defineJob } from '../../infrastructure/queue/job-definition';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { IdempotencyStore } from '../idempotency/idempotency.store';

/** Deletes idempotency keys past IDEMPOTENCY_RETENTION_DAYS. */
export const IDEMPOTENCY_PURGE_JOB = defineJob<Record<string, never>>({
  name: 'idempotency-purge',
  retryLimit: 3,
  retryDelaySeconds: 300,
  expireInSeconds: 600,
});

/** Recurring housekeeping on the job queue: cron ticks are sent by one instance, run by one worker. */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap {
  private readonly logger = new Logger(HousekeepingService.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly idempotency: IdempotencyStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.work(IDEMPOTENCY_PURGE_JOB, () => this.purgeIdempotencyKeys(), { batchSize: 1, pollingIntervalSeconds: 5 });
    // Daily at 03:17 UTC, off the hour so that many services do not purge at once.
    await this.jobs.schedule(IDEMPOTENCY_PURGE_JOB, '17 3 * * *', {});
  }

  async purgeIdempotencyKeys(): Promise<void> {
    const deleted = await this.idempotency.purgeExpired();
    this.logger.log({ deleted }, 'expired idempotency keys purged');
  }
}
