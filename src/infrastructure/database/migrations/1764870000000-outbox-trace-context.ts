import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C `traceparent` of the call that wrote an outbox event (CONTRACT section 16): its delivery
 * attempts start their spans linked to it. Null for events written outside a traced call (tracing
 * off, jobs, rows older than this migration). Adding a nullable column rewrites no row.
 */
export class OutboxTraceContext1764870000000 implements MigrationInterface {
  name = 'OutboxTraceContext1764870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table outbox_events add column trace_context text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table outbox_events drop column trace_context`);
  }
}
