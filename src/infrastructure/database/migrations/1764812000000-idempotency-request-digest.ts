import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The keyed digest of the request bytes whose answer is stored, beside the payload fingerprint: the
 * idempotency replay interceptor answers a byte-identical retry from it before the pipes run. Null
 * for answers stored before: their retries go the whole way and replay in the call runner.
 */
export class IdempotencyRequestDigest1764812000000 implements MigrationInterface {
  name = 'IdempotencyRequestDigest1764812000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table idempotency_keys add column request_digest text null`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table idempotency_keys drop column request_digest`);
  }
}
