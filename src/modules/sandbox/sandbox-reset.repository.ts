import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

export interface ResetCounts {
  accounts: number;
  users: number;
}

/**
 * Deletes one partner's data in one program, children first (the schema's foreign keys), inside
 * the caller's transaction. A sandbox-only tool that must reach every table: it is the one place
 * outside the owning modules that writes them, on purpose, so that the reset stays one transaction.
 */
@Injectable()
export class SandboxResetRepository {
  async removePartnerData(manager: EntityManager, partnerId: string, programCode: string): Promise<ResetCounts> {
    // The partner's accounts, row-locked first: a user update, ITIN or care call on one of them finishes before, or finds nothing after.
    const accounts = (
      (await manager.query(`select id from accounts where partner_id = $1 and program_code = $2 order by id for update`, [partnerId, programCode])) as Array<{
        id: string;
      }>
    ).map((r) => r.id);
    const users = (
      (await manager.query(`select id from users where account_id = any($1::uuid[]) order by id for update`, [accounts])) as Array<{ id: string }>
    ).map((r) => r.id);
    const partner = [partnerId, programCode];
    // The partner's events locked before their delivery log is deleted: an attempt finishing meanwhile
    // (its log row references its event) waits for the reset, then finds the event gone; logged
    // between the two deletes, it would fail the events' delete on that reference (a 500).
    await manager.query(`select id from outbox_events where partner_id = $1 and program_code = $2 order by id for update`, partner);
    await manager.query(`delete from webhook_deliveries where event_id in (select id from outbox_events where partner_id = $1 and program_code = $2)`, partner);
    await manager.query(`delete from outbox_events where partner_id = $1 and program_code = $2`, partner);
    for (const table of ['care_audit', 'enrollments', 'account_limit_keys', 'purses', 'business_profiles', 'payment_instruments']) {
      await manager.query(`delete from ${table} where account_id = any($1::uuid[])`, [accounts]);
    }
    for (const table of ['user_addresses', 'user_phones']) {
      await manager.query(`delete from ${table} where user_id = any($1::uuid[])`, [users]);
    }
    await manager.query(`delete from users where id = any($1::uuid[])`, [users]);
    await manager.query(`delete from accounts where id = any($1::uuid[])`, [accounts]);
    await manager.query(`delete from scan_captures where partner_id = $1 and program_code = $2`, partner);
    await manager.query(`delete from idempotency_keys where partner_id = $1 and program_code = $2`, partner);
    return { accounts: accounts.length, users: users.length };
  }
}
