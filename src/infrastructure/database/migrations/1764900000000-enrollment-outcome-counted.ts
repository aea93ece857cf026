import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whether an enrollment's outcome was counted in `enrollment_outcomes_total` (CONTRACT section 16:
 * each enrollment once). A call that answers an enrollment held or incomplete counts it and sets
 * this, so that the retry or care's clearance that completes it later counts nothing more. A default
 * on a new column rewrites no row (PostgreSQL 11 and later).
 */
export class EnrollmentOutcomeCounted1764900000000 implements MigrationInterface {
  name = 'EnrollmentOutcomeCounted1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`alter table enrollments add column outcome_counted boolean not null default false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`alter table enrollments drop column outcome_counted`);
  }
}
