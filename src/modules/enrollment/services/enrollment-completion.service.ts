import { Injectable, Optional, Inject } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SandboxFaults } from '../../../common/context/sandbox-faults';
import { DomainError } from '../../../common/errors/domain-error';
import { embossName } from '../../../common/validation/characters';
import { Account } from '../../accounts/entities/account.entity';
import { AccountPatch, AccountRecordsService } from '../../accounts/services/account-records.service';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { BusinessProfileService } from '../../business-profile/services/business-profile.service';
import { OutboxService } from '../../events/outbox.service';
import type { IdempotencyKey } from '../../idempotency/idempotency.store';
import { IdempotencyStore } from '../../idempotency/idempotency.store';
import { TransactionRunner } from '../../locking/transaction-runner';
import { UserRecordsService } from '../../user/services/user-records.service';
import { KYC_PROVIDER, KycOutcome, KycProvider } from '../kyc/kyc-provider';
import { Clock } from './clock';
import { EnrollmentPoint, isAhead } from './enrollment-points';

/** Where a continued enrollment stopped: done, held for OFAC review, or short of its bill cycle. */
export type CompletionOutcome = 'completed' | 'held' | 'incomplete';

const OFAC_REVIEW = 'ofacReview';
const KYC_PATCH: Record<KycOutcome, AccountPatch> = {
  pass: {},
  refer: { kycPendingGate: 'manual', statusReason: 'underReview' },
  ofacHold: { statusReason: OFAC_REVIEW },
};

/**
 * The phases after the account is written: KYC/OFAC decision, bill cycle, card, finish. Each
 * phase is one transaction that locks the account row, re-checks its state (so a retry and an
 * OFAC clearance racing each other cannot both act) and commits its recovery point.
 */
@Injectable()
export class EnrollmentCompletionService {
  constructor(
    private readonly tx: TransactionRunner,
    private readonly accounts: AccountRecordsService,
    private readonly users: UserRecordsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly businessProfiles: BusinessProfileService,
    private readonly idempotency: IdempotencyStore,
    private readonly faults: SandboxFaults,
    private readonly clock: Clock,
    @Inject(KYC_PROVIDER) private readonly kyc: KycProvider,
    @Optional() private readonly outbox?: OutboxService,
  ) {}

  /** Runs every phase after `point` (the last recovery point reached). */
  async continueFrom(accountId: string, key: IdempotencyKey | null, point: string): Promise<CompletionOutcome> {
    if (isAhead('kycDecided', point)) await this.decideKyc(accountId, key);
    const account = await this.tx.read((manager) => this.accounts.findById(manager, accountId));
    if (account?.statusReason === OFAC_REVIEW) return 'held';
    if (isAhead('billCycleAssigned', point)) {
      if (this.faults.has('billCycle')) return 'incomplete';
      await this.phase(accountId, key, 'billCycleAssigned', async (manager, current) => {
        if (current.accountCycleDay !== null) return;
        const day = Math.min(this.clock.now().getUTCDate(), 28);
        await this.change(manager, current, { accountCycleDay: day }, 'billCycleAssigned');
      });
    }
    if (isAhead('instrumentIssued', point)) {
      await this.phase(accountId, key, 'instrumentIssued', (manager, current) => this.issueCard(manager, current));
    }
    if (isAhead('finished', point)) {
      await this.phase(accountId, key, 'finished', async (manager, current) => {
        if (current.activatedAt !== null) return;
        const patch: AccountPatch = { activatedAt: this.clock.now() };
        // SERVICE.md: status normal needs a bill cycle date; a KYC gate keeps the account pending (yet active).
        if (current.kycPendingGate === 'none' && current.accountCycleDay !== null) patch.status = 'normal';
        await this.change(manager, current, patch, 'enrollmentCompleted');
      });
    }
    return 'completed';
  }

  /**
   * Care's OFAC clearance: the held enrollment continues exactly as originally requested (bill
   * cycle, card, activation). 409/5/390 when the account is not held.
   */
  async completeAfterOfacClearance(accountId: string): Promise<CompletionOutcome> {
    const key = await this.tx.run(async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, accountId);
      if (account.status !== 'pending' || account.statusReason !== OFAC_REVIEW) throw new DomainError('CARE_NOT_APPLICABLE');
      await this.change(manager, account, { statusReason: null }, 'ofacCleared');
      const idempotencyKey = keyOf(account);
      if (idempotencyKey) await this.idempotency.advance(manager, idempotencyKey, 'kycDecided', { state: { ofacCleared: true } });
      return idempotencyKey;
    });
    return this.continueFrom(accountId, key, 'kycDecided');
  }

  /** Continues an enrollment from the recovery point stored for it (e.g. by a completer job). */
  async resume(accountId: string): Promise<CompletionOutcome> {
    const account = await this.tx.run((manager) => this.accounts.lockForUpdate(manager, accountId));
    const key = keyOf(account);
    const record = key ? await this.idempotency.find(key) : null;
    return this.continueFrom(accountId, key, record?.recoveryPoint ?? 'accountWritten');
  }

  /** KYC/OFAC screening happens outside any transaction (a vendor call); its outcome is written with the point. */
  private async decideKyc(accountId: string, key: IdempotencyKey | null): Promise<void> {
    const subject = await this.tx.read(async (manager) => {
      const account = await this.accounts.findById(manager, accountId);
      const user = await this.users.primaryOf(manager, accountId);
      if (!account || !user) throw new Error(`account ${accountId} has no primary user`);
      return { programCode: account.programCode, accountType: account.accountType, user: await this.users.decrypt(manager, user) };
    });
    const outcome = await this.kyc.screen(subject);
    await this.phase(accountId, key, 'kycDecided', async (manager, current) => {
      const patch = KYC_PATCH[outcome];
      if (Object.keys(patch).length > 0) await this.change(manager, current, patch, `kyc.${outcome}`);
    }, { kyc: outcome });
  }

  private async issueCard(manager: EntityManager, account: Account): Promise<void> {
    if ((await this.instruments.listFor(manager, account.id)).length > 0) return;
    const user = await this.users.primaryOf(manager, account.id);
    if (!user) throw new Error(`account ${account.id} has no primary user`);
    const names = this.users.namesOf(user);
    const businessName = account.accountType === 'business' ? await this.businessProfiles.businessNameOf(manager, account.id) : null;
    const card = await this.instruments.issue(
      manager,
      {
        accountId: account.id,
        userId: user.id,
        // A card issued under a KYC gate is not usable until the gate clears.
        status: account.kycPendingGate === 'none' ? 'active' : 'inactive',
        embossedName: embossName(`${names.firstName} ${names.lastName}`),
        embossedBusinessName: businessName ? embossName(businessName) : null,
      },
      this.clock.now(),
    );
    await this.outbox?.emit(manager, {
      partnerId: account.partnerId,
      programCode: account.programCode,
      accountId: account.id,
      eventType: 'cardUpdated',
      data: { paymentIdentifier: card.id, status: card.status, previousStatus: null, reason: 'issued' },
    });
  }

  /** One phase: lock the account, do the work, commit the recovery point, then honour a sandbox interruption. */
  private async phase(
    accountId: string,
    key: IdempotencyKey | null,
    point: EnrollmentPoint,
    work: (manager: EntityManager, account: Account) => Promise<void>,
    state?: Record<string, unknown>,
  ): Promise<void> {
    await this.tx.run(async (manager) => {
      const account = await this.accounts.lockForUpdate(manager, accountId);
      await work(manager, account);
      if (key) await this.idempotency.advance(manager, key, point, state ? { state } : {});
    });
    this.faults.interruptAfter(point);
  }

  /** Applies a state change and, when a published field changed, emits accountUpdated in the same transaction. */
  private async change(manager: EntityManager, before: Account, patch: AccountPatch, reason: string): Promise<Account> {
    const after = await this.accounts.update(manager, before, patch);
    if (JSON.stringify(stateOf(after)) === JSON.stringify(stateOf(before))) return after;
    await this.outbox?.emit(manager, {
      partnerId: after.partnerId,
      programCode: after.programCode,
      accountId: after.id,
      eventType: 'accountUpdated',
      data: {
        ...stateOf(after),
        previous: stateOf(before),
        reason,
      },
    });
    return after;
  }
}

function stateOf(account: Account) {
  return { status: account.status, statusReason: account.statusReason, kycPendingGate: account.kycPendingGate, accountCycleDay: account.accountCycleDay };
}

function keyOf(account: Account): IdempotencyKey | null {
  return account.requestId ? { partnerId: account.partnerId, programCode: account.programCode, requestId: account.requestId } : null;
}
