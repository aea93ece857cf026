import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many redeliveries a partner has asked for of an event (CONTRACT section 11). A claimed attempt
 * carries the count it was claimed under; one that finishes after a redelivery was asked for is
 * logged but settles nothing, so the redelivery is still one more attempt, due now. A default
 * on a new column rewrites no row (PostgreSQL 11 and later).
 */
export class OutboxRedeliveries1764890000000 implements MigrationInterface {
  name = 'OutboxRedeliveries1764890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table outbox_events add column redeliveries integer not null default 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table outbox_events drop column redeliveries`);
  }
}
