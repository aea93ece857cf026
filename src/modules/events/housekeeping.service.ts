import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { defineDailyJob } from '../../infrastructure/queue/job-definition';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { OutboxRepository } from './outbox.repository';

/** Deletes finished outbox events (and their delivery log) past retention. */
export const RETENTION_PURGE_JOB = defineDailyJob('retention-purge');

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
    await this.jobs.recurring(RETENTION_PURGE_JOB, '27 3 * * *', () => this.purgeRetention());
  }

  async purgeRetention(): Promise<{ events: number }> {
    const purged = { events: await this.outbox.purgeFinished(this.dataSource.manager, EVENT_RETENTION_DAYS) };
    this.logger.log(purged, 'retention purge');
    return purged;
  }
}
