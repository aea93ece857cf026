import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CONTRACT section 7 (2026-11-25). The poller claims per partner (at most its free slots, in due
 * order): the pending index leads with partner_id and replaces the one in due order only. Each
 * delivery attempt records the outcome a partner is shown instead of a network error's text; rows
 * written before are given theirs from what they hold. The `error` column is no longer written.
 */
export class WebhookFairClaimAndOutcome1764880000000 implements MigrationInterface {
  name = 'WebhookFairClaimAndOutcome1764880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`create index outbox_events_partner_pending_idx on outbox_events (partner_id, next_attempt_at) where delivered_at is null and dead = false`);
    await q.query(`drop index outbox_events_pending_idx`);
    await q.query(`alter table webhook_deliveries add column outcome text`);
    await q.query(
      `update webhook_deliveries
          set outcome = case when status_code between 200 and 299 then 'delivered'
                             when status_code is not null then 'httpStatus'
                             when error like 'timeout%' then 'timeout'
                             else 'connectionRefused' end`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table webhook_deliveries drop column outcome`);
    await q.query(`create index outbox_events_pending_idx on outbox_events (next_attempt_at) where delivered_at is null and dead = false`);
    await q.query(`drop index outbox_events_partner_pending_idx`);
  }
}
