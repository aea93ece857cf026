import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { CallRunner } from './call-runner';

/** The call runner: stored-answer replay, advisory locks, the requestId claim and the call's transaction, in that order. */
@Module({
  imports: [IdempotencyModule],
  providers: [CallRunner],
  exports: [CallRunner],
})
export class LockingModule {}
