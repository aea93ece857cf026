import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { defineDailyJob } from '../../../infrastructure/queue/job-definition';
import { JobQueue } from '../../../infrastructure/queue/job-queue';
import { ScanCaptureService } from './scan-capture.service';

/** Deletes scan captures SCAN_CAPTURE_RETENTION_DAYS after they expire. */
export const SCAN_CAPTURE_PURGE_JOB = defineDailyJob('scan-capture-purge');

/** An onboardingID is usable for 24 hours; its capture is kept 30 days after for care. */
export const SCAN_CAPTURE_RETENTION_DAYS = 30;

/** The daily purge of old scan captures, in the module that owns them; cron ticks are sent by one instance, run by one worker. */
@Injectable()
export class ScanCapturePurge implements OnApplicationBootstrap {
  private readonly logger = new Logger(ScanCapturePurge.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly scans: ScanCaptureService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Daily at 03:37 UTC, off the hour and apart from the other purges.
    await this.jobs.recurring(SCAN_CAPTURE_PURGE_JOB, '37 3 * * *', () => this.purge());
  }

  async purge(): Promise<number> {
    const deleted = await this.scans.purgeExpired(SCAN_CAPTURE_RETENTION_DAYS);
    this.logger.log({ deleted }, 'expired scan captures purged');
    return deleted;
  }
}
