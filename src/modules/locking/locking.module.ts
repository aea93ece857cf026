import { Global, Module } from '@nestjs/common';
import { LockInterceptor } from './lock.interceptor';
import { LockService } from './lock.service';
import { TransactionRunner } from './transaction-runner';

/** LockInterceptor is registered as a global interceptor by AppModule, after JWE decryption. */
@Global()
@Module({
  providers: [LockService, TransactionRunner, LockInterceptor],
  exports: [LockService, TransactionRunner, LockInterceptor],
})
export class LockingModule {}
