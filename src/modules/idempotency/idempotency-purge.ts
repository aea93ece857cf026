import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { defineDailyJob } from '../../infrastructure/queue/job-definition';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { IdempotencyStore } from './idempotency.store';

/** Deletes idempotency keys past IDEMPOTENCY_RETENTION_DAYS. */
export const IDEMPOTENCY_PURGE_JOB = defineDailyJob('idempotency-purge');

/** The daily purge of expired requestIds, beside the store it purges; cron ticks are sent by one instance, run by one worker. */
@Injectable()
export class IdempotencyPurge implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdempotencyPurge.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly store: IdempotencyStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Daily at 03:17 UTC, off the hour so that many services do not purge at once.
    await this.jobs.recurring(IDEMPOTENCY_PURGE_JOB, '17 3 * * *', () => this.purge());
  }

  async purge(): Promise<void> {
    const deleted = await this.store.purgeExpired();
    this.logger.log({ deleted }, 'expired idempotency keys purged');
  }
}
