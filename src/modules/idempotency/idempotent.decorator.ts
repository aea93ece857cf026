import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { IDEMPOTENT_OPERATION, IdempotencyReplayInterceptor } from './idempotency-replay.interceptor';

/**
 * The route's requestId is an idempotency key of `operation` (as its CallRunner call names it): a
 * byte-identical retry of a final answer is replayed by IdempotencyReplayInterceptor, after the
 * guard and before the pipes; OpenAPI shows the 200 answer's Idempotent-Replayed header. Put it
 * below the route's 200 answer decorator (ApiAnswer), so that the two 200 entries merge.
 */
export const Idempotent = (operation: string) =>
  applyDecorators(
    SetMetadata(IDEMPOTENT_OPERATION, operation),
    UseInterceptors(IdempotencyReplayInterceptor),
    ApiResponse({
      status: 200,
      headers: {
        'Idempotent-Replayed': {
          description: '"true" when this is the stored answer of the requestId, replayed byte for byte',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    }),
  );
