import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SandboxFaults } from '../../../common/context/sandbox-faults';
import { DomainError } from '../../../common/errors/domain-error';
import type { Account } from '../../accounts/account.types';
import { AccountLimitsService, LimitBreach } from '../../accounts/services/account-limits.service';
import { AccountsService } from '../../accounts/services/accounts.service';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { BusinessProfileService } from '../../business-profile/services/business-profile.service';
import * as lifecycle from '../../lifecycle/account-lifecycle';
import { LifecycleWriter } from '../../lifecycle/lifecycle.writer';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { TransactionRunner } from '../../../infrastructure/database/transaction-runner';
import { UserRecordsService } from '../../user/services/user-records.service';
import { KYC_PROVIDER, KycProvider } from '../kyc/kyc-provider';
import { EnrollmentProgressRepository } from '../repositories/enrollment-progress.repository';
import { Clock } from '../../../infrastructure/time/clock';
import { BILL_CYCLE_FAULT, EnrollmentPoint, isAhead } from './enrollment-points';
import { CareAuditService } from '../../audit/care-audit.service';
import { ofacHoldAudit } from './enrollment-state';

/**
 * Where a continued enrollment stopped: done, held for OFAC review, short of its bill cycle, its
 * account closed by care before it finished (final: it will never continue), or declined because a
 * limit filled up while it was pending.
 */
export type CompletionOutcome = 'completed' | 'held' | 'incomplete' | 'closed' | { declined: LimitBreach };

/** A phase's work on its locked account (what it returns is not used). */
type PhaseWork = (manager: EntityManager, account: Account) => Promise<unknown>;

/**
 * The phases after the account is written, for what cannot finish in one transaction: KYC/OFAC
 * decision (a vendor call, outside any transaction), bill cycle, card, finish. Each phase locks the
 * account row, re-checks its state (so a retry and an OFAC clearance racing each other cannot
 * both act) and records its recovery point with its rows.
 */
@Injectable()
export class EnrollmentCompletionService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountsService,
    private readonly limits: AccountLimitsService,
    private readonly users: UserRecordsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly businessProfiles: BusinessProfileService,
    private readonly progress: EnrollmentProgressRepository,
    private readonly writer: LifecycleWriter,
    private readonly audit: CareAuditService,
    private readonly faults: SandboxFaults,
    private readonly clock: Clock,
    @Inject(KYC_PROVIDER) private readonly kyc: KycProvider,
  ) {}

  /**
   * Runs every phase after `point` (the last recovery point reached), on the call's connection when
   * there is one. An unfinished enrollment continues only while its account is pending: one that
   * care locked, fraud-blocked or closed meanwhile stays as care left it ('incomplete', the account
   * as it is), and continues on a later retry once care has returned it to pending. A closed one
   * never will: 'closed'.
   */
  async continueFrom(call: CallConnection | undefined, accountId: string, point: EnrollmentPoint): Promise<CompletionOutcome> {
    const kycDecided = !isAhead('kycDecided', point) || (await this.decideKyc(call, accountId));
    const account = await this.tx.read(call, (manager) => this.accounts.findById(manager, accountId));
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
    if (account.status === 'closed') return 'closed';
    if (!kycDecided) return 'incomplete';
    if (account.statusReason === lifecycle.STATUS_REASON.ofacReview) return 'held';
    if (isAhead('finished', point) && !continues(account)) return 'incomplete';
    if (isAhead('billCycleAssigned', point) && this.faults.has(BILL_CYCLE_FAULT)) return 'incomplete';
    if (account.activatedAt === null) {
      // Not counted while pending: counted now, under the keys' locks, before it activates.
      const breach = await this.tx.run(call, (manager) => this.limits.recheckAccount(manager, account));
      if (breach) return this.decline(call, accountId, breach);
    }
    const phases: Array<[EnrollmentPoint, PhaseWork]> = [
      ['billCycleAssigned', (manager, current) => this.apply(manager, current, lifecycle.assignCycleDay(current, this.clock.now()))],
      ['instrumentIssued', (manager, current) => this.issueCard(manager, current)],
      [
        'finished',
        async (manager, current) =>
          this.apply(manager, current, lifecycle.activate(current, await this.instruments.listFor(manager, current.id), this.clock.now())),
      ],
    ];
    for (const [next, work] of phases) {
      if (isAhead(next, point) && !(await this.phase(call, accountId, next, work))) return this.stopped(call, accountId);
    }
    return 'completed';
  }

  /**
   * Care's OFAC clearance: the held enrollment continues exactly as originally requested (KYC, which
   * the hold came before, then bill cycle, card, activation). 409/5/390 when the account is not held.
   */
  async completeAfterOfacClearance(call: CallConnection | undefined, accountId: string): Promise<CompletionOutcome> {
    await this.tx.run(call, async (manager) => {
      const found = await this.accounts.findById(manager, accountId);
      if (!found) throw new DomainError('ACCOUNT_NOT_FOUND');
      // The limit keys before the account row, in the order an enrollment takes them (no deadlock with its retry).
      await this.limits.lockKeysOf(manager, found);
      const account = await this.accounts.lockForUpdate(manager, accountId);
      await this.apply(manager, account, lifecycle.clearOfac(account));
    });
    // The hold was the screening's answer, given before KYC: KYC is decided now (a referral holds
    // the account for manual review, as it would have without the list match).
    if (!(await this.decideKyc(call, accountId, { ofacCleared: true }))) return 'incomplete';
    return this.continueFrom(call, accountId, 'kycDecided');
  }

  /** A phase found its account no longer pending: care acted between the phases. */
  private async stopped(call: CallConnection | undefined, accountId: string): Promise<CompletionOutcome> {
    const account = await this.tx.read(call, (manager) => this.accounts.findById(manager, accountId));
    return account?.status === 'closed' ? 'closed' : 'incomplete';
  }

  /** The key filled up while the enrollment was pending: it ends with the limit's decline, its account closed (never activated). */
  private async decline(call: CallConnection | undefined, accountId: string, breach: LimitBreach): Promise<CompletionOutcome> {
    await this.tx.run(call, async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, accountId);
      const cards = await this.instruments.listFor(manager, accountId);
      await this.apply(manager, account, lifecycle.declineForLimit(account, cards, this.clock.now()));
      await this.progress.advance(manager, accountId, 'finished');
    });
    return { declined: breach };
  }

  /**
   * KYC/OFAC screening happens outside any transaction (a vendor call); its outcome is written with
   * the point. False, screening nothing, when the account no longer continues (continues()).
   */
  private async decideKyc(call: CallConnection | undefined, accountId: string, options: { ofacCleared?: boolean } = {}): Promise<boolean> {
    const subject = await this.tx.read(call, async (manager) => {
      const account = await this.accounts.findById(manager, accountId);
      const user = await this.users.primaryOf(manager, accountId);
      if (!account || !user) throw new Error(`account ${accountId} has no primary user`);
      if (!continues(account)) return null;
      return {
        programCode: account.programCode,
        accountType: account.accountType,
        user: await this.users.decrypt(manager, user),
        ...(options.ofacCleared ? { ofacCleared: true } : {}),
      };
    });
    if (!subject) return false;
    const { outcome, ofacHit } = await this.kyc.screen(subject);
    return this.phase(call, accountId, 'kycDecided', async (manager, current) => {
      const after = await this.apply(manager, current, lifecycle.decideKyc(current, outcome));
      if (ofacHit) await this.audit.record(manager, ofacHoldAudit(after, current, ofacHit));
    });
  }

  private async issueCard(manager: EntityManager, account: Account): Promise<void> {
    const cards = await this.instruments.listFor(manager, account.id);
    if (cards.length > 0) return;
    const user = await this.users.primaryOf(manager, account.id);
    if (!user) throw new Error(`account ${account.id} has no primary user`);
    const businessName = account.accountType === 'business' ? await this.businessProfiles.businessNameOf(manager, account.id) : null;
    const holder = { userId: user.id, ...this.users.namesOf(user) };
    await this.writer.apply(manager, account, lifecycle.issueCard(account, cards, holder, businessName, randomUUID()));
  }

  /**
   * One phase: lock the account, do the work, record the recovery point, then honour a sandbox
   * interruption. False, doing nothing, when the locked account no longer continues (care acted
   * between the phases).
   */
  private async phase(call: CallConnection | undefined, accountId: string, point: EnrollmentPoint, work: PhaseWork): Promise<boolean> {
    const done = await this.tx.run(call, async (manager) => {
      const current = await this.accounts.lockForUpdate(manager, accountId);
      if (!continues(current)) return false;
      await work(manager, current);
      await this.progress.advance(manager, accountId, point);
      return true;
    });
    if (done) this.faults.interruptAfter(point);
    return done;
  }

  /** Applies a lifecycle transition (its events in the same transaction); returns the account as written. */
  private async apply(manager: EntityManager, account: Account, change: lifecycle.Transition): Promise<Account> {
    return (await this.writer.apply(manager, account, change)).account;
  }
}

/** An unfinished enrollment's account continues while it is pending: not once care has locked, fraud-blocked or closed it. */
function continues(account: Pick<Account, 'status'>): boolean {
  return account.status === 'pending';
}
