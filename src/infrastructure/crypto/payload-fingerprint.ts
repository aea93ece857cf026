import { createHash, createHmac, KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import canonicalize from 'canonicalize';
import type { RequestBytes } from '../../common/context/request-bytes';
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

  of(operation: string, payload: unknown, key: KeyObject = this.keys.blindIndexKey): string {
    return `${KEYED}${createHmac('sha256', key)
      .update(`fingerprint\n${operation}\n${canonicalize(payload) ?? ''}`)
      .digest('base64url')}`;
  }

  /**
   * The digest of a request's bytes under an operation (HMAC with the same key, its own label), or
   * null without bytes: stored beside the fingerprint with a final answer, so that a byte-identical
   * retry is known before its body is read (CONTRACT section 6). It reveals nothing of the body.
   */
  ofBytes(operation: string, { contentType, raw }: RequestBytes): string | null {
    if (raw === undefined) return null;
    const digest = createHmac('sha256', this.keys.blindIndexKey)
      .update(`request bytes\n${operation}\n${contentType ?? ''}\n`)
      .update(raw)
      .digest('base64url');
    return `${KEYED}${digest}`;
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
