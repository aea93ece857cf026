import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An enrollment's recovery point moves to its own row (`enrollments`, one writer: the enrollment
 * module); `idempotency_keys` keeps only the fingerprint and the stored answer. The encrypted copy
 * of the request (written, never read), the `state` bag and the account link go. One account per
 * requestId is now a unique index.
 */
export class EnrollmentProgress1764000000000 implements MigrationInterface {
  name = 'EnrollmentProgress1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      create table enrollments (
        account_id uuid primary key references accounts(id),
        program_code text not null,
        recovery_point text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    await q.query(`
      insert into enrollments (account_id, program_code, recovery_point, created_at, updated_at)
      select a.id, a.program_code,
             coalesce(k.recovery_point, case when a.activated_at is not null then 'finished' else 'accountWritten' end),
             a.created_at, a.updated_at
        from accounts a
        left join idempotency_keys k on k.account_id = a.id`);
    await q.query(`create unique index accounts_request_idx on accounts (partner_id, program_code, request_id) where request_id is not null`);
    for (const column of ['request_enc', 'state', 'recovery_point', 'account_id']) {
      await q.query(`alter table idempotency_keys drop column ${column}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table idempotency_keys add column account_id uuid null`);
    await q.query(`alter table idempotency_keys add column recovery_point text not null default 'started'`);
    await q.query(`alter table idempotency_keys add column state jsonb not null default '{}'::jsonb`);
    await q.query(`alter table idempotency_keys add column request_enc text null`);
    await q.query(`drop index accounts_request_idx`);
    await q.query(`drop table enrollments`);
  }
}
