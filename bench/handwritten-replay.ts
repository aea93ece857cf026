/**
 * Baseline (c) of the replay scenario: the essential work of answering an identical retry of a
 * completed enrollment, written by hand on a bare Fastify route with `pg`, on the service's own
 * rows. It answers "how fast can a replay go on this machine and database", next to (a), the same
 * route running the same read and nothing else, which issue 10's goal is set against (replay ≥ 60%
 * of (a)).
 *
 * Per request: the JSON body (parsed by Fastify) fingerprinted as the service does (its
 * PayloadFingerprint: the RFC 8785 canonical form, HMAC under the blind-index key), the service's
 * stored-answer read (the same prepared statement), the fingerprints compared, and the stored answer
 * decrypted (its FieldCipher, the answer's context) and sent as it is. The crypto is the service's
 * own classes over the service's keys, so (c) reads the service's rows; what (c) leaves out is the
 * rest: no token check, body validation, lock, request log or metrics, as (c) of the enrollment.
 */
import type { Pool } from 'pg';
import { FieldCipher } from '../src/infrastructure/crypto/field-cipher';
import type { KeyStore } from '../src/infrastructure/crypto/key-store';
import { PayloadFingerprint } from '../src/infrastructure/crypto/payload-fingerprint';
import { ENROLLMENT_OPERATION } from '../src/modules/enrollment/services/enrollment-points';
import { answerContext, FIND_SQL } from '../src/modules/idempotency/idempotency.store';

/** What one request of (c) does, in order; the report prints it. */
export const HANDWRITTEN_REPLAY_WORK = [
  'JSON body parsed',
  'canonical form (RFC 8785) keyed into the fingerprint',
  "the service's stored-answer read, prepared",
  'fingerprints compared',
  'stored answer decrypted (AES-256-GCM) and sent',
] as const;

interface StoredAnswer {
  fingerprint: string;
  responseStatus: number | null;
  responseBody: string | null;
}

export interface HandwrittenReplayAnswer {
  status: number;
  body: string;
}

export class HandwrittenReplay {
  private readonly fingerprints: PayloadFingerprint;
  private readonly cipher: FieldCipher;

  constructor(
    /** Its search_path starts with the service's schema. */
    private readonly pool: Pool,
    keys: KeyStore,
    private readonly partnerId: string,
  ) {
    this.fingerprints = new PayloadFingerprint(keys);
    this.cipher = new FieldCipher(keys);
  }

  async replay(programCode: string, body: unknown): Promise<HandwrittenReplayAnswer> {
    const requestId = (body as { requestId?: unknown } | null)?.requestId;
    if (typeof requestId !== 'string') return { status: 400, body: '{"error":"requestId"}' };
    const key = { partnerId: this.partnerId, programCode, requestId };
    const fingerprint = this.fingerprints.of(ENROLLMENT_OPERATION, body);
    // A pooled client, not pool.query: pool.query passes a callback, and the client runs the marked statement unnamed then.
    const client = await this.pool.connect();
    let row: StoredAnswer | undefined;
    try {
      row = ((await client.query(FIND_SQL, [key.partnerId, key.programCode, key.requestId])) as { rows: StoredAnswer[] }).rows[0];
    } finally {
      client.release();
    }
    if (!row?.responseBody) return { status: 404, body: '{"error":"no stored answer"}' };
    if (row.fingerprint !== fingerprint) return { status: 422, body: '{"error":"another payload"}' };
    return { status: row.responseStatus ?? 200, body: this.cipher.decrypt(row.responseBody, answerContext(key)) };
  }
}
