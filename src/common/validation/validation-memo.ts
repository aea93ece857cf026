import { hash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';

/** How many bodies, and for how long, the memo remembers as having passed their DTO's field rules. */
const MAX_REMEMBERED = 10_000;
const REMEMBER_MS = 10 * 60_000;

/** A request body as it arrived: its bytes and the Content-Type that chose their parser. */
export interface ArrivedBody {
  contentType: string | undefined;
  raw: Buffer | undefined;
}

/** How a request's body arrived: its bytes, which Nest's body parser keeps (`rawBody`), and its Content-Type. */
export function arrivedBodyOf(request: FastifyRequest & { rawBody?: Buffer }): ArrivedBody {
  return { contentType: request.headers['content-type'], raw: request.rawBody };
}

/**
 * The request bodies that have passed their DTO's field rules lately, each with its payload
 * fingerprint, so that the identical body (a partner's retry of the same call, the common case of
 * an idempotent replay) is not validated field by field again (~130 µs of class-validator per
 * enrollment body), nor serialised and hashed again for its fingerprint. Sound because the same
 * bytes under the same Content-Type parse to the same value, which the body hook and the pipe
 * prepare the same way (NFC on every /v1 route, which the remembering routes are; prototype-named
 * keys; a JWE opened with the service's keys, for a partner with encryption: its plaintext is a
 * function of its bytes, and the key says whether it was opened), and the field rules and the fingerprint are functions of that value and the code
 * alone (the one clock-dependent rule, a date of birth not in the future, only turns from invalid
 * to valid as time passes). Only successes are remembered; a body that fails is validated every
 * time and answered with its errors. A body that differs by a byte (whitespace, key order) is
 * simply not known: it is validated, and its call still finds its stored answer by fingerprint.
 *
 * It holds no part of a body: it is keyed by a SHA-256 of a secret made at start-up that never
 * leaves the process, the DTO's name, the Content-Type and the bytes, so the digests of bodies
 * carrying SSNs cannot be tested against guesses anywhere else; the fingerprints it keeps are the
 * ones the idempotency records store anyway (PayloadFingerprint). A secret prefix rather than an
 * HMAC: the digest is never sent or verified anywhere (so length extension gives nothing), and the
 * one-shot hash costs a replay ~1 µs against the HMAC's ~2 in a micro-benchmark and ~8 µs under the
 * bench's load (OpenSSL's per-call HMAC set-up).
 *
 * One per process (ValidationModule): the body pipe fills it, and the enrollment's early replay
 * asks it, before reading a stored answer, whether a body has passed and under which fingerprint
 * (CONTRACT section 6: the field rules first, then the stored-answer look-up).
 */
@Injectable()
export class ValidationMemo {
  private readonly secret = randomBytes(32);
  private readonly passed = new LRUCache<string, string>({ max: MAX_REMEMBERED, ttl: REMEMBER_MS });

  /**
   * The memo's key of a body for this DTO, or undefined when its bytes are not known (no memo then).
   * `opened`: whether the pipe read the body through a partner's JWE. The same bytes are another
   * body for a partner without encryption (the JWE string stays a string there, and fails the
   * rules), so the two readings never share an entry.
   */
  digestOf(dto: { name: string }, { contentType, raw }: ArrivedBody, opened = false): string | undefined {
    if (raw === undefined) return undefined;
    const reading = `${dto.name}\u0000${opened ? 'jwe' : 'plain'}\u0000${contentType ?? ''}\u0000`;
    return hash('sha256', Buffer.concat([this.secret, Buffer.from(reading), raw]), 'base64url');
  }

  /** The payload fingerprint of a body that passed lately, or undefined. */
  fingerprintOf(digest: string | undefined): string | undefined {
    return digest === undefined ? undefined : this.passed.get(digest);
  }

  remember(digest: string | undefined, fingerprint: string): void {
    if (digest !== undefined) this.passed.set(digest, fingerprint);
  }
}
