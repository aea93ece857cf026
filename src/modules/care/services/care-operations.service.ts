import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import { Account, AccountStatus } from '../../accounts/entities/account.entity';
import { AccountPatch } from '../../accounts/services/account-records.service';
import { EnrollmentCompletionService } from '../../enrollment/services/enrollment-completion.service';
import { TransactionRunner } from '../../locking/transaction-runner';
import { auditedActor, CareActionRunner, CareActor } from './care-action-runner';
import { CareAuditService } from '../../audit/care-audit.service';
import { CareStateWriter } from './care-state-writer';

/** statusReason values care sets (SERVICE.md names only underReview; the contract leaves the rest to us). */
export const CARE_REASON = { lock: 'careLock', fraudBlock: 'fraudBlock', ofacReview: 'ofacReview', underReview: 'underReview' } as const;

/**
 * The status an account rests in once nothing holds it: normal needs a bill cycle day (SERVICE.md)
 * and a completed enrollment; anything short of that is pending, for the identical retry to complete.
 */
export function restingStatus(account: Account): AccountStatus {
  return account.accountCycleDay !== null && account.activatedAt !== null ? 'normal' : 'pending';
}

/** Accounts care may lock or block: live ones, not those still held for OFAC review (no card, no activation yet). */
export function isLockable(account: Account): boolean {
  return (account.status === 'normal' || account.status === 'pending') && account.statusReason !== CARE_REASON.ofacReview;
}

/**
 * Account-level care operations of CONTRACT section 8. A care lock remembers nothing on the
 * account row: the audit entry of the lock holds the state before it, which unlock restores. A fraud
 * block restores nothing: its removal (CardUnblockService) sets the account healthy and normal.
 */
@Injectable()
export class CareOperationsService {
  constructor(
    private readonly runner: CareActionRunner,
    private readonly writer: CareStateWriter,
    private readonly audit: CareAuditService,
    private readonly tx: TransactionRunner,
    private readonly completion: EnrollmentCompletionService,
  ) {}

  lock(who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(who, accountId, 'lock', async (manager, account) => {
      if (!isLockable(account)) throw new DomainError('CARE_NOT_APPLICABLE');
      await this.writer.updateAccount(manager, account, { status: 'locked', statusReason: CARE_REASON.lock }, 'care.lock');
    });
  }

  unlock(who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(who, accountId, 'unlock', async (manager, account) => {
      if (account.status !== 'locked' || account.statusReason !== CARE_REASON.lock) throw new DomainError('CARE_NOT_APPLICABLE');
      await this.writer.updateAccount(manager, account, await this.stateBefore(manager, account, 'lock'), 'care.unlock');
    });
  }

  /** Closing ends the account and every card still usable; closed accounts stop counting as active for limits. */
  close(who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(who, accountId, 'close', async (manager, account) => {
      if (account.status === 'closed') throw new DomainError('CARE_NOT_APPLICABLE');
      const closed = await this.writer.updateAccount(manager, account, { status: 'closed', statusReason: null, closedAt: new Date() }, 'care.close');
      for (const card of await this.writer.cards(manager, account.id)) {
        if (card.status !== 'replaced' && card.status !== 'closed') await this.writer.setCardStatus(manager, closed, card, 'closed', 'care.close');
      }
    });
  }

  /** Fraud block: account locked, every usable card blocked. */
  fraudBlock(who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(who, accountId, 'fraudBlock', async (manager, account) => {
      if (!isLockable(account)) throw new DomainError('CARE_NOT_APPLICABLE');
      const blocked = await this.writer.updateAccount(manager, account, { status: 'locked', statusReason: CARE_REASON.fraudBlock }, 'care.fraudBlock');
      for (const card of await this.writer.cards(manager, account.id)) {
        if (card.status === 'active' || card.status === 'inactive') await this.writer.setCardStatus(manager, blocked, card, 'blocked', 'care.fraudBlock');
      }
    });
  }

  /** The KYC gate (cure) cleared by care: gate none, status normal, cards usable (incl. one left blocked by a failed unblock). */
  clearKycGate(who: CareActor, accountId: string): Promise<void> {
    return this.runner.run(who, accountId, 'kycGate.clear', async (manager, account) => {
      if (account.kycPendingGate !== 'manual' || !isLockable(account)) throw new DomainError('CARE_NOT_APPLICABLE');
      const status = restingStatus(account);
      const cleared = await this.writer.updateAccount(manager, account, { kycPendingGate: 'none', statusReason: null, status }, 'care.kycGateClear');
      if (status !== 'normal') return;
      for (const card of await this.writer.cards(manager, account.id)) {
        if (card.status === 'inactive' || card.status === 'blocked') await this.writer.setCardStatus(manager, cleared, card, 'active', 'care.kycGateClear');
      }
    });
  }

  /**
   * OFAC clearance: the held enrollment continues exactly as originally requested, through the
   * enrollment module's own phases (several transactions), so the audit entry is written after them.
   */
  async clearOfac(who: CareActor, accountId: string): Promise<void> {
    const { id, before } = await this.tx.run(async (manager) => {
      const account = await this.runner.lockAccount(manager, who, accountId);
      return { id: account.id, before: await this.writer.snapshot(manager, account) };
    });
    const outcome = await this.completion.completeAfterOfacClearance(id);
    await this.tx.run(async (manager) => {
      const account = await this.runner.lockAccount(manager, who, id);
      const after = await this.writer.snapshot(manager, account);
      await this.audit.record(manager, { accountId: id, ...auditedActor(who), action: 'ofacClear', before, after, detail: { outcome } });
    });
  }

  /** The status and reason recorded before the latest `action` (a care lock) of the account. */
  private async stateBefore(manager: EntityManager, account: Account, action: string): Promise<AccountPatch> {
    const entry = await this.audit.latest(manager, account.id, [action]);
    if (entry) return { status: entry.before.status as AccountStatus, statusReason: entry.before.statusReason };
    // No record (a lock set outside care): derive the resting state from the account itself.
    const complete = account.activatedAt !== null && account.accountCycleDay !== null && account.kycPendingGate === 'none';
    return { status: complete ? 'normal' : 'pending', statusReason: account.kycPendingGate === 'manual' ? CARE_REASON.underReview : null };
  }
}
