import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

/** How many bodies, and for how long, the memo remembers as having passed their DTO's field rules. */
const MAX_REMEMBERED = 10_000;
const REMEMBER_MS = 10 * 60_000;

/**
 * The bodies that have passed their DTO's field rules lately, so that an identical body (a
 * partner's retry of the same call, the common case of an idempotent replay) is not validated
 * field by field again: ~130 µs of class-validator per enrollment body. Sound because the field
 * rules are a function of the parsed body and the code alone (the one clock-dependent rule, a
 * date of birth not in the future, only turns from invalid to valid as time passes): an identical
 * parsed body gets the same verdict. Only successes are remembered; a body that fails is
 * validated every time and answered with its errors.
 *
 * It holds no part of a body: only the call's payload fingerprint (PayloadFingerprint: an HMAC of
 * the RFC 8785 canonical form under the blind-index key, which the idempotency record stores
 * anyway), under the DTO's name. The caller computes it, once per body object (`ofBody`): the same
 * fingerprint the call runner then compares with the stored one, so an identical retry serialises
 * and hashes its body once, not once for the memo and again for the runner. Canonical, so key order
 * does not count, and the field rules do not depend on it either.
 *
 * One per process (ValidationModule): the body pipe fills it, and the enrollment's early replay
 * asks it whether a body has passed before reading a stored answer (CONTRACT section 6: the field
 * rules first, then the stored-answer look-up).
 */
@Injectable()
export class ValidationMemo {
  private readonly passed = new LRUCache<string, true>({ max: MAX_REMEMBERED, ttl: REMEMBER_MS });

  /** Whether a body of this fingerprint passed this DTO's field rules lately. */
  hasPassed(dto: { name: string }, fingerprint: string | undefined): boolean {
    return fingerprint !== undefined && this.passed.has(keyOf(dto, fingerprint));
  }

  remember(dto: { name: string }, fingerprint: string | undefined): void {
    if (fingerprint !== undefined) this.passed.set(keyOf(dto, fingerprint), true);
  }
}

function keyOf(dto: { name: string }, fingerprint: string): string {
  return `${dto.name}\n${fingerprint}`;
}
