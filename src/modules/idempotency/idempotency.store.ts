import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import canonicalize from 'canonicalize';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { FieldCipher } from '../../infrastructure/crypto/field-cipher';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';

export interface IdempotencyKey {
  partnerId: string;
  programCode: string;
  requestId: string;
}

const REQUEST_CONTEXT = 'idempotency_keys.request';

/** RFC 8785 canonical JSON, hashed: key order and whitespace never change a fingerprint. */
export function fingerprintOf(operation: string, payload: unknown): string {
  return createHash('sha256').update(`${operation}\n${canonicalize(payload) ?? ''}`).digest('hex');
}

/** The idempotency keys table: one row per (partner, program, requestId). */
@Injectable()
export class IdempotencyStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
    private readonly config: AppConfig,
  ) {}

  find(key: IdempotencyKey, manager: EntityManager = this.dataSource.manager): Promise<IdempotencyKeyEntity | null> {
    return manager.findOne(IdempotencyKeyEntity, { where: { ...key } });
  }

  /** Records the request at its first recovery point; a no-op when the row already exists. */
  async begin(manager: EntityManager, key: IdempotencyKey, operation: string, fingerprint: string, requestPlain: unknown): Promise<void> {
    const days = this.config.env.idempotencyRetentionDays;
    await manager.query(
      `insert into idempotency_keys (partner_id, program_code, request_id, operation, fingerprint, recovery_point, request_enc, expires_at)
       values ($1, $2, $3, $4, $5, 'started', $6, now() + make_interval(days => $7::int))
       on conflict (partner_id, program_code, request_id) do nothing`,
      [key.partnerId, key.programCode, key.requestId, operation, fingerprint, this.cipher.encryptJson(requestPlain, REQUEST_CONTEXT), days],
    );
  }

  /** Moves to a recovery point in the same transaction as the phase's rows. */
  async advance(manager: EntityManager, key: IdempotencyKey, point: string, patch: { accountId?: string; state?: Record<string, unknown> } = {}): Promise<void> {
    await manager.query(
      `update idempotency_keys
          set recovery_point = $4,
              account_id = coalesce($5, account_id),
              state = state || $6::jsonb,
              updated_at = now()
        where partner_id = $1 and program_code = $2 and request_id = $3`,
      [key.partnerId, key.programCode, key.requestId, point, patch.accountId ?? null, JSON.stringify(patch.state ?? {})],
    );
  }

  /** Stores the final response once; a later write never replaces it. */
  async saveResponse(key: IdempotencyKey, status: number, body: string, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `update idempotency_keys set response_status = $4, response_body = $5, updated_at = now()
        where partner_id = $1 and program_code = $2 and request_id = $3 and response_body is null`,
      [key.partnerId, key.programCode, key.requestId, status, body],
    );
  }

  /** The original request, decrypted (for resumption by a retry or a background completion). */
  originalRequest<T>(record: IdempotencyKeyEntity): T | null {
    return record.requestEnc ? this.cipher.decryptJson<T>(record.requestEnc, REQUEST_CONTEXT) : null;
  }

  /** Deletes keys past retention; returns how many. */
  async purgeExpired(): Promise<number> {
    const result = (await this.dataSource.query(`delete from idempotency_keys where expires_at < now()`)) as [unknown, number];
    return result[1] ?? 0;
  }
}
