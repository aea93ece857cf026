import { applyDecorators, SetMetadata, Type } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

/** Values a call can be locked on (SERVICE.md "API locking"). */
export type LockValue = 'requestId' | 'ssn' | 'accountIdentifier' | 'userIdentifier';

export const LOCK_ON = 'locking:values';
export const PRE_LOCK_CHECK = 'locking:pre-lock-check';

/**
 * Overlapping calls with the same values are serialised across every app instance: the later
 * call waits up to LOCK_WAIT_MS, then gets 503/503/1 with Retry-After.
 */
export const LockOn = (...values: LockValue[]) =>
  applyDecorators(
    SetMetadata(LOCK_ON, values),
    ApiResponse({
      status: 503,
      description: `Locked on ${values.join(', ')}: an overlapping call held the lock past LOCK_WAIT_MS (code 503, subCode 1, Retry-After), or the database is unavailable (503/2).`,
    }),
  );

/** Rules of the route that need more than the DTO (program configuration, several fields), run before the locks. */
export const CheckBeforeLocks = (check: Type<unknown>) => SetMetadata(PRE_LOCK_CHECK, check);
