import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { defineJob } from '../../infrastructure/queue/job-definition';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { OutboxRepository } from './outbox.repository';

/** Deletes finished outbox events (and their delivery log) past retention. */
export const RETENTION_PURGE_JOB = defineJob<Record<string, never>>({
  name: 'retention-purge',
  retryLimit: 3,
  retryDelaySeconds: 300,
  expireInSeconds: 600,
});

/** Events stay listable at least 30 days (CONTRACT section 11). Undelivered events are never purged. */
export const EVENT_RETENTION_DAYS = 30;

/** Recurring housekeeping on the job queue: cron ticks are sent by one instance, run by one worker. */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap {
  private readonly logger = new Logger(HousekeepingService.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly outbox: OutboxRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Daily at 03:27 UTC, off the hour so that many services do not purge at once.
    await this.jobs.work(RETENTION_PURGE_JOB, async () => void (await this.purgeRetention()), { batchSize: 1, pollingIntervalSeconds: 5 });
    await this.jobs.schedule(RETENTION_PURGE_JOB, '27 3 * * *', {});
  }

  async purgeRetention(): Promise<{ events: number }> {
    const purged = { events: await this.outbox.purgeFinished(this.dataSource.manager, EVENT_RETENTION_DAYS) };
    this.logger.log(purged, 'retention purge');
    return purged;
  }
}
