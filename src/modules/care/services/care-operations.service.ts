import { Injectable } from '@nestjs/common';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import { CareAuditService } from '../../audit/care-audit.service';
import { Clock } from '../../../infrastructure/time/clock';
import { EnrollmentService } from '../../enrollment/services/enrollment.service';
import * as lifecycle from '../../lifecycle/account-lifecycle';
import { LifecycleWriter } from '../../lifecycle/lifecycle.writer';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { auditedActor, CareActionRunner, CareActor } from './care-action-runner';

/**
 * Account-level care operations of CONTRACT section 8. The rules are the account lifecycle's
 * (`lifecycle/account-lifecycle.ts`); each operation is one audited transaction of the runner.
 */
@Injectable()
export class CareOperationsService {
  constructor(
    private readonly runner: CareActionRunner,
    private readonly writer: LifecycleWriter,
    private readonly audit: CareAuditService,
    private readonly enrollments: EnrollmentService,
    private readonly clock: Clock,
    private readonly limits: AccountLimitsService,
  ) {}

  lock(call: CallConnection, who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(call, who, accountId, 'lock', async (manager, account) => {
      await this.writer.apply(manager, account, lifecycle.lock(account));
    });
  }

  /**
   * Restores the status and reason the lock found (kept on the account), unless the account would
   * then count as active beyond its keys' active limits (another account enrolled meanwhile): 2/60, 2/63.
   */
  unlock(call: CallConnection, who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(call, who, accountId, 'unlock', async (manager, account) => {
      const change = lifecycle.unlock(account);
      await this.limits.admitReturnToActive(manager, account, change.patch);
      await this.writer.apply(manager, account, change);
    });
  }

  /**
   * Closing ends the account and every card still usable; closed accounts stop counting as active for
   * limits. An enrollment that had not finished (held, or stopped short) ends with it, its answer stored.
   */
  close(call: CallConnection, who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(call, who, accountId, 'close', async (manager, account, cards) => {
      await this.writer.apply(manager, account, lifecycle.close(account, cards, this.clock.now()));
      await this.enrollments.endClosedByCare(manager, account.id);
    });
  }

  /** Fraud block: account locked, every usable card blocked. */
  fraudBlock(call: CallConnection, who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(call, who, accountId, 'fraudBlock', async (manager, account, cards) => {
      await this.writer.apply(manager, account, lifecycle.fraudBlock(account, cards));
    });
  }

  /** The KYC gate (cure) cleared by care: gate none, status normal, cards usable (incl. one left blocked by a failed unblock). */
  clearKycGate(call: CallConnection, who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(call, who, accountId, 'kycGate.clear', async (manager, account, cards) => {
      await this.writer.apply(manager, account, lifecycle.clearKycGate(account, cards));
    });
  }

  /**
   * OFAC clearance: the held enrollment continues exactly as originally requested, through the
   * enrollment module's own phases (several transactions), so the audit entry is written after them.
   */
  async clearOfac(call: CallConnection, who: CareActor, accountId: string): Promise<void> {
    const { id, before } = await call.run(async (manager) => {
      // The limit keys before the account row, in the order an enrollment takes them: its identical
      // retry holds them across its phases and locks the row in each, so the row first deadlocked.
      await this.limits.lockKeysOf(manager, await this.runner.requireVisible(who, accountId, manager));
      const account = await this.runner.lockAccount(manager, who, accountId);
      return { id: account.id, before: await this.runner.snapshot(manager, account) };
    });
    const outcome = await this.enrollments.completeAfterOfacClearance(call, id);
    await call.run(async (manager) => {
      const account = await this.runner.lockAccount(manager, who, id);
      const after = await this.runner.snapshot(manager, account);
      await this.audit.record(manager, { accountId: id, ...auditedActor(who), action: 'ofacClear', before, after, detail: { outcome } });
    });
  }
}
