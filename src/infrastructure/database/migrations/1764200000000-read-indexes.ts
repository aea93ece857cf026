import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the one-statement reads of GET account and GET users. `purses` had only the partial
 * unique index of the primary purse, which a read of every purse of an account cannot use (a full
 * scan per GET account). Users, cards, addresses and phones are already found by an index on their
 * parent key (users_account_idx, payment_instruments_account_idx, the unique (user_id, type) pairs).
 */
export class ReadIndexes1764200000000 implements MigrationInterface {
  name = 'ReadIndexes1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`create index purses_account_idx on purses (account_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`drop index purses_account_idx`);
  }
}
