import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account lifecycle keeps its own state on the account row instead of reading the care audit
 * trail: the status and reason to restore after a care lock, and the card unblock run that still
 * applies with its last attempt handled. Existing rows are filled from the audit trail once, here.
 */
export class AccountLifecycleState1764700000000 implements MigrationInterface {
  name = 'AccountLifecycleState1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      alter table accounts
        add column restore_status text null,
        add column restore_status_reason text null,
        add column unblock_run_id uuid null,
        add column unblock_attempt integer not null default 0`);
    await q.query(`
      update accounts a
         set restore_status = last.before ->> 'status', restore_status_reason = last.before ->> 'statusReason'
        from (select distinct on (account_id) account_id, before from care_audit where action = 'lock' order by account_id, id desc) last
       where last.account_id = a.id and a.status = 'locked' and a.status_reason = 'careLock'`);
    await q.query(`
      update accounts a
         set unblock_run_id = (run.detail ->> 'unblockRunId')::uuid,
             unblock_attempt = coalesce((select max((t.detail ->> 'attempt')::int) from care_audit t
                                          where t.account_id = a.id and t.action like 'cardUnblock.%' and t.detail ->> 'runId' = run.detail ->> 'unblockRunId'), 0)
        from (select distinct on (account_id) account_id, action, detail from care_audit
               where action in ('fraudBlock', 'fraudBlock.remove') order by account_id, id desc) run
       where run.account_id = a.id and run.action = 'fraudBlock.remove'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `alter table accounts drop column restore_status, drop column restore_status_reason, drop column unblock_run_id, drop column unblock_attempt`,
    );
  }
}
