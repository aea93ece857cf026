import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhook poller and the partner event list (CONTRACT section 11).
 * - `tx_id` (the inserting transaction's id) and `seq` (a sequence number taken at insert) order a
 *   partner's events for the list; the list shows only rows of transactions older than every one
 *   still running, so a cursor (tx_id, seq) never skips a row that commits late (see
 *   OutboxRepository.listPage). Rows written before this migration share its transaction id.
 * - The poller's claim (`delivered_at is null and not dead and next_attempt_at <= now()`, oldest
 *   due first) is served by the existing partial index outbox_events_pending_idx.
 */
export class OutboxPollerAndList1764300000000 implements MigrationInterface {
  name = 'OutboxPollerAndList1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table outbox_events add column seq bigserial, add column tx_id xid8 not null default pg_current_xact_id()`);
    await q.query(`create index outbox_events_partner_list_idx on outbox_events (partner_id, tx_id, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`drop index outbox_events_partner_list_idx`);
    await q.query(`alter table outbox_events drop column tx_id, drop column seq`);
  }
}
