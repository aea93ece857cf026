import { ApiErrors } from '../../common/openapi/api-answers';

/**
 * OpenAPI of a call the CallRunner locks (SERVICE.md "API locking"): overlapping calls with the
 * same values are serialised across every app instance; the later one waits up to LOCK_WAIT_MS,
 * then gets 503/503/1 with Retry-After. The locks themselves are declared where the use case calls
 * the runner.
 */
export const ApiLocked = (...values: string[]) =>
  ApiErrors(
    { 503: ['LOCK_TIMEOUT', 'DEPENDENCY_UNAVAILABLE', 'PARTNER_IN_FLIGHT_LIMIT'] },
    {
      503:
        `Locked on ${values.join(', ')}: an overlapping call with the same values held the lock for longer than the service waits (503/1), ` +
        'the database is unavailable (503/2), or too many of your calls are in flight at once (503/3); each with Retry-After. ' +
        'Retry the identical request (same body, and the same requestId where the body has one) after Retry-After seconds, at most 3 times (the retry policy of the API description)',
    },
  );
