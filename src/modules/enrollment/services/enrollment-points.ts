import type { IdempotencyKey } from '../../idempotency/idempotency.store';

/**
 * Recovery points of an enrollment (ARCHITECTURE.md), in order, kept in `enrollments`. A new
 * enrollment decided at once is written at `finished` (or `kycDecided` when held or short of its
 * bill cycle); the phased path commits each point with the rows of its phase, and a retry or an
 * OFAC clearance continues after the last one reached.
 */
export const ENROLLMENT_POINTS = ['accountWritten', 'kycDecided', 'billCycleAssigned', 'instrumentIssued', 'finished'] as const;
export type EnrollmentPoint = (typeof ENROLLMENT_POINTS)[number];

/** The sandbox faults an enrollment reads (`X-Sandbox-Fault`, docs/partner-api.md): the bill-cycle step's, and an interruption after each point. */
export const BILL_CYCLE_FAULT = 'billCycle';
export const ENROLLMENT_SANDBOX_FAULTS: readonly string[] = [BILL_CYCLE_FAULT, ...ENROLLMENT_POINTS.map((point) => `after:${point}`)];

export const ENROLLMENT_OPERATION = 'enrollment';

/**
 * How an enrollment is known to the call runner: its idempotency key (partner, program, requestId),
 * its operation and its payload, the request as the partner sent it (decrypted), whose canonical
 * form is the fingerprint.
 */
export function enrollmentCall<R extends { requestId: string }>(partnerId: string, programCode: string, request: R) {
  return { key: { partnerId, programCode, requestId: request.requestId } satisfies IdempotencyKey, operation: ENROLLMENT_OPERATION, payload: request };
}

/** True when `point` has not been reached yet from `current`. */
export function isAhead(point: EnrollmentPoint, current: EnrollmentPoint): boolean {
  return ENROLLMENT_POINTS.indexOf(point) > ENROLLMENT_POINTS.indexOf(current);
}
