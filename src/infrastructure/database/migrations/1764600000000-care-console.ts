import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The care console (issue 15, CONTRACT section 14). `care_audit` names the staff member of a console
 * action or reveal (the identity provider's subject and email) and the reason given; API and job
 * entries leave the three columns null. `care_sessions` is connect-pg-simple's session table
 * (its own layout), so any instance serves a signed-in staff member; expired rows are pruned by the store.
 * Two indexes serve the console's reads: the search by phone (blind index) and an account's events.
 */
export class CareConsole1764600000000 implements MigrationInterface {
  name = 'CareConsole1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table care_audit add column staff_subject text, add column staff_email text, add column reason text`);
    await q.query(`
      create table care_sessions (
        sid varchar not null primary key,
        sess json not null,
        expire timestamptz not null
      )`);
    await q.query(`create index care_sessions_expire_idx on care_sessions (expire)`);
    await q.query(`create index user_phones_number_bidx_idx on user_phones (number_bidx)`);
    await q.query(`create index outbox_events_account_idx on outbox_events (account_id, occurred_at) where account_id is not null`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`drop index outbox_events_account_idx`);
    await q.query(`drop index user_phones_number_bidx_idx`);
    await q.query(`drop table care_sessions`);
    await q.query(`alter table care_audit drop column staff_subject, drop column staff_email, drop column reason`);
  }
}
