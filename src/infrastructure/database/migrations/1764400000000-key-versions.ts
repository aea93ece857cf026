import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The id of the key each kind of derived data was computed under (issue 13). `blind_index`: the
 * `_bidx` columns. The service refuses to start with another blind-index key, which would make every
 * limit and look-up silently miss; `npm run keys:reindex` moves the data and this row together.
 */
export class KeyVersions1764400000000 implements MigrationInterface {
  name = 'KeyVersions1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      create table key_versions (
        purpose text primary key,
        key_id text not null,
        updated_at timestamptz not null default now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`drop table key_versions`);
  }
}
