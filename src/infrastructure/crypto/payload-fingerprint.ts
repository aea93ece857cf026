import { createHash, createHmac, KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import canonicalize from 'canonicalize';
import { KeyStore } from './key-store';

const KEYED = 'h1:';

/**
 * The fingerprint of an idempotent call's payload: an HMAC (keyed with the blind-index key, under
 * its own label) of the operation and the RFC 8785 canonical JSON, so key order and whitespace
 * never change it and a stored fingerprint reveals nothing of the SSN inside the payload. Stored
 * fingerprints of before (unkeyed SHA-256, no prefix) still match their identical retry.
 */
@Injectable()
export class PayloadFingerprint {
  constructor(private readonly keys: KeyStore) {}

  /**
   * The fingerprints of request bodies already computed, per body object: the body pipe (which
   * keeps it in the validation memo) and the call runner both need the fingerprint of the same
   * parsed body, and the canonical form with its HMAC is the dearest step of a call's idempotency
   * check. Sound because nothing changes a body once it is ready: the body hook's NFC and the
   * dropped prototype-named keys come before the first of them asks, and the rules, the use case
   * and the runner only read it (the validated body is what they receive).
   */
  private readonly ofBodies = new WeakMap<object, { operation: string; fingerprint: string }>();

  of(operation: string, payload: unknown, key: KeyObject = this.keys.blindIndexKey): string {
    return `${KEYED}${createHmac('sha256', key)
      .update(`fingerprint\n${operation}\n${canonicalize(payload) ?? ''}`)
      .digest('base64url')}`;
  }

  /** `of()` for a request's parsed body, computed once per body object (see `ofBodies`). */
  ofBody(operation: string, body: unknown): string {
    if (body === null || typeof body !== 'object') return this.of(operation, body);
    const known = this.ofBodies.get(body);
    if (known?.operation === operation) return known.fingerprint;
    const fingerprint = this.of(operation, body);
    this.ofBodies.set(body, { operation, fingerprint });
    return fingerprint;
  }

  /**
   * Whether `stored` is the fingerprint of this payload (either form). After a blind-index key
   * rotation, a requestId stored under a previous key still matches its identical retry.
   */
  matches(stored: string, operation: string, payload: unknown, computed = this.of(operation, payload)): boolean {
    if (stored.startsWith(KEYED)) {
      return stored === computed || (this.keys.previousBlindIndexKeys ?? []).some((key) => stored === this.of(operation, payload, key));
    }
    return (
      stored ===
      createHash('sha256')
        .update(`${operation}\n${canonicalize(payload) ?? ''}`)
        .digest('hex')
    );
  }
}
