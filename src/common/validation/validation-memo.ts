import { createHmac, createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { prepareJson, WITHOUT_PROTOTYPE_KEYS } from '../http/json-body';

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
 * It holds no part of a body: only an HMAC of the DTO's name and the body's JSON, under a key
 * made at start-up that never leaves the process, so the digests of bodies carrying SSNs cannot
 * be tested against guesses anywhere else.
 *
 * One per process (ValidationModule): the body pipe fills it, and the enrollment's early replay
 * asks it whether a body has passed before reading a stored answer (CONTRACT section 6: the field
 * rules first, then the stored-answer look-up).
 */
@Injectable()
export class ValidationMemo {
  private readonly key: KeyObject = createSecretKey(randomBytes(32));
  private readonly passed = new LRUCache<string, true>({ max: MAX_REMEMBERED, ttl: REMEMBER_MS });

  /**
   * The digest of each body object, once: the early replay computes it for every enrollment it
   * looks at, and the body pipe of the same request then reuses it instead of serialising and
   * hashing the body a second time. Sound because a body is only changed before either reads it
   * (the body hook's NFC; the prototype-named keys both drop before asking).
   */
  private readonly digests = new WeakMap<object, { dto: string; key: string }>();

  /** The body's digest under this DTO, or undefined for a body that is not a JSON object. */
  keyOf(dto: { name: string }, body: unknown): string | undefined {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
    const known = this.digests.get(body);
    if (known?.dto === dto.name) return known.key;
    const key = createHmac('sha256', this.key).update(dto.name).update('\u0000').update(JSON.stringify(body)).digest('base64url');
    this.digests.set(body, { dto: dto.name, key });
    return key;
  }

  hasPassed(key: string | undefined): boolean {
    return key !== undefined && this.passed.has(key);
  }

  /**
   * Whether this parsed body, read as the body pipe reads it (keys named like prototype properties
   * dropped, in place), passed this DTO's field rules lately.
   */
  hasPassedBody(dto: { name: string }, body: unknown): boolean {
    prepareJson(body, WITHOUT_PROTOTYPE_KEYS);
    return this.hasPassed(this.keyOf(dto, body));
  }

  remember(key: string | undefined): void {
    if (key !== undefined) this.passed.set(key, true);
  }
}
