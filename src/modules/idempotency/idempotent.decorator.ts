import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { IDEMPOTENT_OPERATION } from './idempotency-context';
import { IdempotencyInterceptor } from './idempotency.interceptor';


/**
 * The body's requestId is an idempotency key (per partner and program): the same payload
 * replays the stored answer (header Idempotent-Replayed: true) or resumes an interrupted call;
 * a different payload is refused with 422/422/0. Validation failures are never stored.
 */
export const Idempotent = (operation: string) =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_OPERATION, operation),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({ name: 'Idempotent-Replayed', required: false, description: 'Response header: "true" when the stored answer of this requestId is replayed' }),
    ApiResponse({ status: 422, description: 'requestId reused with a different payload (code 422, subCode 0)' }),
  );
