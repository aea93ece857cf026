import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { affectedRows } from '../../../infrastructure/database/affected-rows';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import type { IdempotencyKey } from '../../idempotency/idempotency.store';
import type { EnrollmentPoint } from '../services/enrollment-points';

/**
 * `enrollments`: the recovery point of each enrollment, beside its account. Its only writer is the
 * enrollment module; a retry, the OFAC clearance or a resume continues from the point stored here.
 */
@Injectable()
export class EnrollmentProgressRepository {
  stage(batch: WriteBatch, accountId: string, programCode: string, point: EnrollmentPoint, now: Date, outcomeCounted = false): void {
    batch.insert(
      'enrollments',
      ['account_id', 'program_code', 'recovery_point', 'created_at', 'updated_at', 'outcome_counted'],
      [[accountId, programCode, point, now, now, outcomeCounted]],
    );
  }

  async advance(manager: EntityManager, accountId: string, point: EnrollmentPoint): Promise<void> {
    await manager.query(`update enrollments set recovery_point = $2, updated_at = now() where account_id = $1`, [accountId, point]);
  }

  /** Records the enrollment as finished, if it was not yet (an enrollment care ended by closing its account). */
  async finish(manager: EntityManager, accountId: string): Promise<void> {
    await manager.query(`update enrollments set recovery_point = 'finished', updated_at = now() where account_id = $1 and recovery_point <> 'finished'`, [
      accountId,
    ]);
  }

  /** Where the enrollment of a requestId stands (request status endpoint), if its first rows were committed. */
  async stateByRequest(manager: EntityManager, key: IdempotencyKey): Promise<{ statusReason: string | null; updatedAt: Date } | null> {
    const rows = (await manager.query(
      `select a.status_reason as "statusReason", greatest(e.updated_at, a.updated_at) as "updatedAt"
         from accounts a join enrollments e on e.account_id = a.id
        where a.partner_id = $1 and a.program_code = $2 and a.request_id = $3`,
      [key.partnerId, key.programCode, key.requestId],
    )) as Array<{ statusReason: string | null; updatedAt: Date }>;
    return rows[0] ?? null;
  }

  /** The enrollment a requestId started, if its first rows were committed; `outcomeCounted`: an earlier call counted its outcome. */
  async findByRequest(manager: EntityManager, key: IdempotencyKey): Promise<{ accountId: string; point: EnrollmentPoint; outcomeCounted: boolean } | null> {
    const rows = (await manager.query(
      `select e.account_id as "accountId", e.recovery_point as point, e.outcome_counted as "outcomeCounted"
         from accounts a join enrollments e on e.account_id = a.id
        where a.partner_id = $1 and a.program_code = $2 and a.request_id = $3`,
      [key.partnerId, key.programCode, key.requestId],
    )) as Array<{ accountId: string; point: EnrollmentPoint; outcomeCounted: boolean }>;
    return rows[0] ?? null;
  }

  /**
   * Records, with the call's other writes, that the enrollment's outcome was counted
   * (enrollment_outcomes_total). For a row committed before: the batch's statements share one
   * snapshot, so a row inserted in the same batch is marked by `stage` instead.
   */
  stageCounted(batch: WriteBatch, accountId: string): void {
    batch.write(`update enrollments set outcome_counted = true where account_id = $1`, [accountId]);
  }

  /** Records that the enrollment's outcome is counted now; false when an earlier call counted it already. */
  async claimCount(manager: EntityManager, accountId: string): Promise<boolean> {
    const result: unknown = await manager.query(`update enrollments set outcome_counted = true where account_id = $1 and not outcome_counted`, [accountId]);
    return affectedRows(result) > 0;
  }
}
