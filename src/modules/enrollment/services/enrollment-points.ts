/**
 * Recovery points of an enrollment (ARCHITECTURE.md), in order. Each is committed with the rows
 * of its phase; a retry or an OFAC clearance continues after the last one reached.
 */
export const ENROLLMENT_POINTS = ['started', 'accountWritten', 'kycDecided', 'billCycleAssigned', 'instrumentIssued', 'finished'] as const;
export type EnrollmentPoint = (typeof ENROLLMENT_POINTS)[number];

/** A limit decline recorded before any account row exists: the retry evaluates afresh if no answer was stored. */
export const DECLINED_POINT = 'declined';

export const ENROLLMENT_OPERATION = 'enrollment';

/** True when `point` has not been reached yet from `current`. */
export function isAhead(point: EnrollmentPoint, current: string): boolean {
  const at = ENROLLMENT_POINTS.indexOf(current as EnrollmentPoint);
  return ENROLLMENT_POINTS.indexOf(point) > (at < 0 ? 0 : at);
}
