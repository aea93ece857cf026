import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotencyPurge } from './idempotency-purge';
import { IdempotencyStore } from './idempotency.store';

/** Stored answers of requestIds (fingerprint, state, encrypted answer) and their daily purge. */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyStore, IdempotencyPurge],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {}
