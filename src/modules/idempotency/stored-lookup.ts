import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { IdempotencyRecord } from './idempotency.store';

/**
 * What the replay interceptor read of a request's requestId (its record, or null: none), handed to
 * the CallRunner through the controller, so that an idempotent call reads its record once: the
 * interceptor's read, after the guard, is the runner's stored-answer look-up (CONTRACT section 6).
 */
export interface StoredLookup {
  record: IdempotencyRecord | null;
}

const LOOKUP = Symbol('idempotency.storedLookup');

type WithLookup = { [LOOKUP]?: StoredLookup };

/** Kept on the request by the interceptor that read it. */
export function keepLookup(request: object, lookup: StoredLookup): void {
  (request as WithLookup)[LOOKUP] = lookup;
}

/**
 * The parameter receives the interceptor's StoredLookup of this request, or undefined when it read
 * nothing (a query string, no valid requestId, a failed read): the runner then reads for itself.
 */
export const LookedUp = createParamDecorator((_data: unknown, context: ExecutionContext): StoredLookup | undefined => {
  return context.switchToHttp().getRequest<WithLookup>()[LOOKUP];
});
