import { Global, Module } from '@nestjs/common';
import { LockInterceptor } from './lock.interceptor';
import { LockService } from './lock.service';
import { TransactionRunner } from './transaction-runner';
import { ValidateFirstInterceptor } from './validate-first.interceptor';

/** ValidateFirstInterceptor and LockInterceptor are registered as global interceptors by AppModule, after JWE decryption. */
@Global()
@Module({
  providers: [LockService, TransactionRunner, LockInterceptor, ValidateFirstInterceptor],
  exports: [LockService, TransactionRunner, LockInterceptor, ValidateFirstInterceptor],
})
export class LockingModule {}
