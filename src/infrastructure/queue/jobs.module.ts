import { Global, Module } from '@nestjs/common';
import { JobQueue } from './job-queue';

/** The durable job queue, one pg-boss instance per process; started on init, drained on app.close(). */
@Global()
@Module({
  providers: [JobQueue],
  exports: [JobQueue],
})
export class JobsModule {}
