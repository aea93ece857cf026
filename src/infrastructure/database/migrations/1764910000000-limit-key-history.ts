import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The keys an activated account ever counted under (CONTRACT section 6: lifetime limits count every
 * account ever activated). An account's default phone can change; the number it leaves stays a row
 * of its own, `retired_at` set, which the lifetime limits still count and the active ones do not.
 * An account has one row per key it held, so the key's index joins the primary key.
 */
export class LimitKeyHistory1764910000000 implements MigrationInterface {
  name = 'LimitKeyHistory1764910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table account_limit_keys add column retired_at timestamptz null`);
    await q.query(`alter table account_limit_keys drop constraint account_limit_keys_pkey`);
    await q.query(`alter table account_limit_keys add primary key (account_id, key_kind, key_bidx)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`delete from account_limit_keys where retired_at is not null`);
    await q.query(`alter table account_limit_keys drop constraint account_limit_keys_pkey`);
    await q.query(`alter table account_limit_keys add primary key (account_id, key_kind)`);
    await q.query(`alter table account_limit_keys drop column retired_at`);
  }
}
