import { Global, Module } from '@nestjs/common';
import { BackgroundWork } from './background-work';
import { JobQueue } from './job-queue';

/**
 * The durable job queue, one pg-boss instance per process, started on init and drained on
 * app.close(); and the gate that holds every background worker back until the instance serves.
 */
@Global()
@Module({
  providers: [JobQueue, BackgroundWork],
  exports: [JobQueue, BackgroundWork],
})
export class JobsModule {}
