import { Global, Module } from '@nestjs/common';
import { CallRunner } from './call-runner';
import { LockService } from './lock.service';
import { TransactionRunner } from './transaction-runner';

/** Advisory locks, the call runner and the transactions of a call. */
@Global()
@Module({
  providers: [LockService, TransactionRunner, CallRunner],
  exports: [LockService, TransactionRunner, CallRunner],
})
export class LockingModule {}
