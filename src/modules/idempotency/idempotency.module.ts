import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotencyContext } from './idempotency-context';
import { IdempotencyInterceptor, IdempotentReplayInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyStore, IdempotencyContext, IdempotencyInterceptor, IdempotentReplayInterceptor],
  exports: [IdempotencyStore, IdempotencyContext, IdempotencyInterceptor, IdempotentReplayInterceptor],
})
export class IdempotencyModule {}
