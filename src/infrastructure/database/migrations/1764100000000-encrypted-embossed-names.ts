import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Embossed names are personal data (CONTRACT section 5): they move to AES-GCM columns bound to
 * their row. Rows written before keep their plaintext until re-encrypted (read as a fallback).
 */
export class EncryptedEmbossedNames1764100000000 implements MigrationInterface {
  name = 'EncryptedEmbossedNames1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table payment_instruments add column embossed_name_enc text null, add column embossed_business_name_enc text null`);
    await q.query(`alter table payment_instruments alter column embossed_name drop not null`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table payment_instruments drop column embossed_name_enc, drop column embossed_business_name_enc`);
  }
}
