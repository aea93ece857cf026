import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotencyContext } from './idempotency-context';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyStore, IdempotencyContext, IdempotencyInterceptor],
  exports: [IdempotencyStore, IdempotencyContext, IdempotencyInterceptor],
})
export class IdempotencyModule {}
