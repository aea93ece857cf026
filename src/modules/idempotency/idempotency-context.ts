import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import type { IdempotencyKey } from './idempotency.store';

export const IDEMPOTENCY_CONTEXT = 'idempotency:context';
/** Route metadata set by @Idempotent(): the operation name that prefixes the fingerprint. */
export const IDEMPOTENT_OPERATION = 'idempotency:operation';

export interface IdempotencyCall {
  key: IdempotencyKey;
  operation: string;
  fingerprint: string;
  /** The stored row when this requestId was seen before (an incomplete call to resume). */
  record: IdempotencyKeyEntity | null;
  /** Set by the service when its answer is not final (held, or short of a step): not stored, the retry resumes. */
  incomplete?: boolean;
}

/** What the idempotency interceptor learned about the current call, for the service to act on. */
@Injectable()
export class IdempotencyContext {
  constructor(private readonly cls: ClsService) {}

  current(): IdempotencyCall | undefined {
    return this.cls.isActive() ? (this.cls.get(IDEMPOTENCY_CONTEXT) as IdempotencyCall | undefined) : undefined;
  }
}
