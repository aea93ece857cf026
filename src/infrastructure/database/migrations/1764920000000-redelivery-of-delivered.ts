import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CONTRACT section 11: a redelivery is one more delivery attempt. Of an event already delivered,
 * the time it was delivered is kept here while that attempt is due: refused, the attempt is the one
 * asked for (no retry schedule follows) and the event is delivered again as it was.
 */
export class RedeliveryOfDelivered1764920000000 implements MigrationInterface {
  name = 'RedeliveryOfDelivered1764920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table outbox_events add column previously_delivered_at timestamptz null`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `update outbox_events set delivered_at = previously_delivered_at, dead = false where previously_delivered_at is not null and delivered_at is null`,
    );
    await q.query(`alter table outbox_events drop column previously_delivered_at`);
  }
}
