import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { IdempotencyRecord } from './idempotency.store';

/**
 * What the replay interceptor did for a request, handed to the CallRunner through the controller:
 * it admitted the call under the partner's in-flight cap before its read (PartnerInFlight), so the
 * runner does not admit it again; and what it read of the requestId (its record, or null: none), so
 * that an idempotent call reads its record once: the interceptor's read, after the guard, is the
 * runner's stored-answer look-up (CONTRACT section 6).
 */
export interface StoredLookup {
  /** Undefined when the read failed: the runner reads for itself. */
  record?: IdempotencyRecord | null;
}

const LOOKUP = Symbol('idempotency.storedLookup');

type WithLookup = { [LOOKUP]?: StoredLookup };

/** Kept on the request by the interceptor that read it. */
export function keepLookup(request: object, lookup: StoredLookup): void {
  (request as WithLookup)[LOOKUP] = lookup;
}

/**
 * The parameter receives the interceptor's StoredLookup of this request, or undefined when it neither
 * admitted nor read (a query string, no valid requestId): the runner then admits and reads for itself.
 */
export const LookedUp = createParamDecorator((_data: unknown, context: ExecutionContext): StoredLookup | undefined => {
  return context.switchToHttp().getRequest<WithLookup>()[LOOKUP];
});
