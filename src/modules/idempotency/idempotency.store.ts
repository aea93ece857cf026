import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { FieldCipher } from '../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import type { CallConnection } from '../../infrastructure/database/call-connection';
import { queryRows } from '../../infrastructure/database/pooled-read';
import { DatabasePools } from '../../infrastructure/database/database-pools';
import { prepared } from '../../infrastructure/database/prepared-statements';

export interface IdempotencyKey {
  partnerId: string;
  programCode: string;
  requestId: string;
}

/** What is known of a requestId: its payload fingerprint and, once final, the answer sent. */
export interface IdempotencyRecord {
  fingerprint: string;
  responseStatus: number | null;
  responseBody: string | null;
  /** PayloadFingerprint.ofBytes of the request whose answer is stored (null before, or stored without). */
  requestDigest: string | null;
}

const KEY_MATCH = 'partner_id = $1 and program_code = $2 and request_id = $3';
const RECORD_COLUMNS = 'fingerprint, response_status as "responseStatus", response_body as "responseBody", request_digest as "requestDigest"';
/** The stored-answer look-up of every idempotent call (a replay is this one statement). */
export const FIND_SQL = prepared(`select ${RECORD_COLUMNS} from idempotency_keys where ${KEY_MATCH}`);
const CLAIM_SQL = prepared(`with created as (
         insert into idempotency_keys (partner_id, program_code, request_id, operation, fingerprint, expires_at)
         values ($1, $2, $3, $4, $5, now() + make_interval(days => $6::int))
         on conflict (partner_id, program_code, request_id) do nothing)
       select ${RECORD_COLUMNS} from idempotency_keys where ${KEY_MATCH}`);

/** A requestId as the request status endpoint shows it: the record, when it was first seen and last written. */
export interface IdempotencyStatus extends IdempotencyRecord {
  operation: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The idempotency keys table: one row per (partner, program, requestId); written only by the CallRunner. */
@Injectable()
export class IdempotencyStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly cipher: FieldCipher,
    private readonly pools: DatabasePools,
  ) {}

  /** The record of a requestId: in the call's transaction (`manager`), or a lone read (a replay). */
  async find(key: IdempotencyKey, manager?: EntityManager): Promise<IdempotencyRecord | null> {
    const values = [key.partnerId, key.programCode, key.requestId];
    const rows = await queryRows<IdempotencyRecord>(manager ?? this.pools.pool(), FIND_SQL, values);
    return this.opened(key, rows[0]);
  }

  /** The record of a requestId with its times (the request status endpoint; a read, no lock). */
  async status(key: IdempotencyKey, manager: EntityManager = this.dataSource.manager): Promise<IdempotencyStatus | null> {
    const rows = (await manager.query(
      `select ${RECORD_COLUMNS}, operation, created_at as "createdAt", updated_at as "updatedAt" from idempotency_keys where ${KEY_MATCH}`,
      [key.partnerId, key.programCode, key.requestId],
    )) as IdempotencyStatus[];
    const row = rows[0];
    if (!row) return null;
    return { ...row, ...(this.opened(key, row) as IdempotencyRecord) };
  }

  /**
   * In the call's transaction, under its requestId lock, one statement (the call's first: it goes
   * with BEGIN and the locks): records the request when it is new (null), or returns the record that
   * already existed (the outer select does not see the insert of its own CTE, so it finds a row only
   * when the insert did nothing).
   */
  async claim(call: CallConnection, key: IdempotencyKey, operation: string, fingerprint: string): Promise<IdempotencyRecord | null> {
    const rows = await call.rows<IdempotencyRecord>(CLAIM_SQL, [
      key.partnerId,
      key.programCode,
      key.requestId,
      operation,
      fingerprint,
      this.config.env.idempotencyRetentionDays,
    ]);
    return this.opened(key, rows[0]);
  }

  /**
   * Stores the final answer once (a later write never replaces it), with the call's other writes,
   * and the digest of the request's bytes that got it (the replay interceptor's test of a retry).
   * It holds personal data (embossed names, partner JWEs), so it is encrypted at rest, bound to
   * its own row: a stored answer copied under another requestId does not decrypt.
   */
  stageAnswer(batch: WriteBatch, key: IdempotencyKey, answer: { status: number; body: string; requestDigest: string | null }): void {
    batch.write(
      `update idempotency_keys set response_status = $4, response_body = $5, request_digest = $6, updated_at = clock_timestamp()
        where ${KEY_MATCH} and response_body is null`,
      [key.partnerId, key.programCode, key.requestId, answer.status, this.cipher.encrypt(answer.body, answerContext(key)), answer.requestDigest],
    );
  }

  /** The record with its answer decrypted (an answer stored before encryption is JSON text as it is). */
  private opened(key: IdempotencyKey, record: IdempotencyRecord | undefined): IdempotencyRecord | null {
    if (!record) return null;
    const stored = record.responseBody;
    if (stored === null || stored.startsWith('{')) return record;
    return { ...record, responseBody: this.cipher.decrypt(stored, answerContext(key)) };
  }

  /**
   * Deletes keys past retention, but never the requestId of an enrollment that opened an account;
   * returns how many. An account carries its requestId for life (unique per partner and program), so
   * the identical retry of a forgotten one would run as a first attempt and meet it: a decline by the
   * limit it now fills, or a conflict on that unique index (500). Kept, it replays or completes
   * (SERVICE.md: "the same result each time"). What retention forgets is the requestIds that opened
   * none (limit declines). The accounts' index on (partner, program, requestId) answers each test.
   */
  async purgeExpired(): Promise<number> {
    const result = (await this.dataSource.query(
      `delete from idempotency_keys k
        where k.expires_at < now()
          and not exists (select 1 from accounts a
                           where a.partner_id = k.partner_id and a.program_code = k.program_code and a.request_id = k.request_id)`,
    )) as [unknown, number];
    return result[1] ?? 0;
  }
}

/** The additional data a stored answer is encrypted under: bound to its partner, program and requestId. */
export function answerContext(key: IdempotencyKey): string {
  return `idempotency_keys.response_body:${key.partnerId}:${key.programCode}:${key.requestId}`;
}
