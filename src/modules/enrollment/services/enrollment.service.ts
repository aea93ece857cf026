import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SandboxFaults } from '../../../common/context/sandbox-faults';
import type { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import type { PartnerConfig } from '../../../config/service-config';
import { BlindIndex } from '../../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { AccountLimitsService, LimitBreach, LimitKeyValue } from '../../accounts/services/account-limits.service';
import { AccountsService } from '../../accounts/services/accounts.service';
import { AccountView, AccountViewService } from '../../account-views/services/account-view.service';
import type { CallConnection } from '../../../infrastructure/database/call-connection';
import { CallAnswer, CallOutcome, isFinal, Outcome } from '../../locking/call-outcome';
import { CallRunner, IdempotentCall } from '../../locking/call-runner';
import { outcomeText } from '../../locking/call-answer';
import { IdempotencyKey, IdempotencyStore } from '../../idempotency/idempotency.store';
import { AppConfig } from '../../../config/app-config';
import { LockNames } from '../../../infrastructure/database/lock.service';
import { EnrollmentOutcome, Metrics } from '../../../infrastructure/metrics/metrics';
import { UserRecordsService } from '../../user/services/user-records.service';
import { KYC_PROVIDER, KycProvider } from '../kyc/kyc-provider';
import { EnrollmentProgressRepository } from '../repositories/enrollment-progress.repository';
import { Clock } from '../../../infrastructure/time/clock';
import { CompletionOutcome, EnrollmentCompletionService } from './enrollment-completion.service';
import { BILL_CYCLE_FAULT, enrollmentCall, EnrollmentPoint } from './enrollment-points';
import { EnrollmentPlan, EnrollmentRulesService } from './enrollment-rules.service';
import { decide, PENDING_STATE } from '../../lifecycle/account-lifecycle';
import { EnrollmentWriter } from './enrollment-writer';
import { ScanCaptureService } from './scan-capture.service';

/**
 * POST enrollments, through the CallRunner (replay, locks on requestId, SSN and limit keys,
 * idempotency). A first attempt whose KYC/OFAC decision can be made in memory is one transaction:
 * limit counts in one statement, every row in one more, the answer built from memory. What cannot
 * finish at once (a remote KYC vendor, a sandbox interruption) writes the pending account, commits,
 * and completes phase by phase; the identical retry resumes from the recovery point reached.
 */
@Injectable()
export class EnrollmentService {
  constructor(
    private readonly calls: CallRunner,
    private readonly rules: EnrollmentRulesService,
    private readonly writer: EnrollmentWriter,
    private readonly progress: EnrollmentProgressRepository,
    private readonly accounts: AccountsService,
    private readonly users: UserRecordsService,
    private readonly limits: AccountLimitsService,
    private readonly scans: ScanCaptureService,
    private readonly completion: EnrollmentCompletionService,
    private readonly views: AccountViewService,
    private readonly blindIndex: BlindIndex,
    private readonly faults: SandboxFaults,
    private readonly clock: Clock,
    @Inject(KYC_PROVIDER) private readonly kyc: KycProvider,
    private readonly metrics: Metrics,
    private readonly store: IdempotencyStore,
    private readonly config: AppConfig,
  ) {}

  /**
   * Care's OFAC clearance of a held enrollment (CONTRACT section 10: "completed automatically"): it
   * continues exactly as originally requested, and its final answer (the completed enrollment, or the
   * decline of a limit that filled up meanwhile) is stored for its requestId as the identical retry
   * would have answered it, so the request status reads completed with that answer and the retry
   * replays it (CONTRACT section 11: completed means a final answer is stored). `call` is care's, on
   * the account's lock; an answer a retry stored first is kept. Counted in enrollment_outcomes_total
   * only when no call counted the enrollment (the held call did).
   */
  async completeAfterOfacClearance(call: CallConnection, accountId: string): Promise<CompletionOutcome> {
    const outcome = await this.completion.completeAfterOfacClearance(call, accountId);
    if (outcome !== 'completed' && typeof outcome !== 'object') return outcome;
    const decided = await call.run(async (manager) => {
      const answer = await this.storeFinal(manager, accountId, async (partner) => {
        if (typeof outcome !== 'object') return Outcome.completed(await this.views.render(accountId, partner, manager));
        const holder = await this.users.primaryOf(manager, accountId);
        return this.decline(manager, partner, holder ? this.users.dateOfBirthOf(holder) : null, outcome.declined);
      });
      // Counted by the clearance only when no call counted it (the call that was held did, as held).
      return answer && (await this.progress.claimCount(manager, accountId)) ? outcomeLabel(answer) : undefined;
    });
    if (decided) this.metrics.countEnrollment(decided);
    return outcome;
  }

  /**
   * Care closed the account of an enrollment that had no final answer (held for OFAC review, or
   * stopped short): it will never continue, so it ends here, its answer the closed account as the
   * identical retry answers it (`continueFrom`'s 'closed'), stored so that the request status reads
   * completed with it and the retry replays it. So does one that had finished but whose answer was
   * never stored (a call interrupted at that instant), which would otherwise read incomplete for good.
   * In care's transaction, after the close; an answer already stored is kept (`stageAnswer` writes
   * only where none is). Not counted in enrollment_outcomes_total: care ended it, not the enrollment.
   */
  async endClosedByCare(manager: EntityManager, accountId: string): Promise<void> {
    await this.progress.finish(manager, accountId);
    await this.storeFinal(manager, accountId, async (partner) => Outcome.completed(await this.views.render(accountId, partner, manager)));
  }

  /**
   * An enrollment's answer decided outside the partner's call (`answerFor` its partner), stored for
   * the account's requestId as the identical retry would have answered it; undefined, storing
   * nothing, for an account without a requestId or a partner no longer configured.
   */
  private async storeFinal(
    manager: EntityManager,
    accountId: string,
    answerFor: (partner: PartnerConfig) => Promise<CallOutcome<AccountView>>,
  ): Promise<CallOutcome<AccountView> | undefined> {
    const account = await this.accounts.findById(manager, accountId);
    const partner = account ? this.config.service.partnerById(account.partnerId) : undefined;
    if (!account?.requestId || !partner) return undefined;
    const answer = await answerFor(partner);
    const key: IdempotencyKey = { partnerId: account.partnerId, programCode: account.programCode, requestId: account.requestId };
    const batch = new WriteBatch();
    this.store.stageAnswer(batch, key, { status: 200, body: outcomeText(key.requestId, answer, this.config.env.publicUrl), requestDigest: null });
    await batch.execute(manager);
    return answer;
  }

  /**
   * `edge`, from the controller: the request's bytes; the requestId's record as the replay
   * interceptor read it for this request, when it did; the text the edge answers for an outcome.
   */
  async enroll(principal: Principal, plan: EnrollmentPlan, edge: Pick<IdempotentCall, 'bytes' | 'lookedUp' | 'render'>): Promise<CallAnswer> {
    const { partner } = principal;
    const programCode = plan.program.programCode;
    const { key, operation, payload } = enrollmentCall(partner.partnerId, programCode, plan.request);
    const limitKeys = this.rules.limitKeys(plan);
    const ssn = plan.request.encryptedUserData.identifyingData.ssn;
    // Each enrollment counted once (CONTRACT section 16), after the call has committed: a replay runs
    // no work. A first attempt counts its outcome; one it answers held or incomplete is marked counted
    // with its writes, so that the retry or care's clearance that completes it counts nothing more. A
    // retry counts only an enrollment no earlier call counted (that one was interrupted, a 503).
    let decided: EnrollmentOutcome | undefined;
    const answer = await this.calls.idempotent({
      key,
      operation,
      payload,
      ...edge,
      // SERVICE.md locks an enrollment on requestId and SSN; the limit keys are locked with them (one round trip).
      locks: () => [
        LockNames.requestId(key.partnerId, programCode, key.requestId),
        ...(ssn ? [LockNames.ssn(programCode, this.blindIndex.of('ssn', ssn))] : []),
        ...this.limits.lockNames(programCode, limitKeys),
        // Shared: enrollments run side by side; the sandbox reset of this partner's data waits for them.
        LockNames.shared(LockNames.partnerData(key.partnerId, programCode)),
      ],
      firstAttempt: async (manager) => {
        this.rules.checkTermsWindow(plan);
        if (plan.onboardingID !== null) await this.scans.checkWindow(manager, plan.onboardingID);
      },
      work: async ({ resumed, call, batch }) => {
        const started = resumed ? await this.progress.findByRequest(call.manager, key) : null;
        if (!started) {
          const outcome = await this.firstAttempt(call, batch, partner, plan, limitKeys);
          decided = outcomeLabel(outcome);
          return outcome;
        }
        const outcome = await this.continue(call, partner, plan, started.accountId, started.point);
        if (!started.outcomeCounted) {
          decided = outcomeLabel(outcome);
          if (decided) this.progress.stageCounted(batch, started.accountId);
        }
        return outcome;
      },
    });
    if (decided) this.metrics.countEnrollment(decided);
    return answer;
  }

  /**
   * `?validateOnly=true`: the pipe ran every shape, cross-field and program rule; what is left that
   * needs no stored data is the terms window, judged now as a first attempt would be. No lock, no read.
   */
  validate(plan: EnrollmentPlan): void {
    this.rules.checkTermsWindow(plan);
  }

  async get(principal: Principal, programCode: string, accountIdentifier: string): Promise<AccountView> {
    // The tenancy check is part of the read: another partner's or program's account is not found.
    return this.views.render(accountIdentifier, principal.partner, undefined, { partnerId: principal.partner.partnerId, programCode });
  }

  private async firstAttempt(
    call: CallConnection,
    batch: WriteBatch,
    partner: PartnerConfig,
    plan: EnrollmentPlan,
    limitKeys: LimitKeyValue[],
  ): Promise<CallOutcome<AccountView>> {
    const manager = call.manager;
    const programCode = plan.program.programCode;
    const claimed =
      plan.onboardingID !== null
        ? await this.scans.claim(manager, partner.partnerId, programCode, plan.onboardingID, plan.user.identifyingData.matriculaId)
        : null;
    const userData = claimed ? { ...plan.user, identifyingData: { ...plan.user.identifyingData, matriculaId: claimed.idNumber } } : plan.user;
    const breach = await this.limits.check(manager, {
      programCode,
      partnerId: partner.partnerId,
      accountType: plan.accountType,
      limits: plan.program.limits[plan.accountType],
      keys: limitKeys,
    });
    if (breach) return this.decline(manager, partner, plan.user.identifyingData.dateOfBirth, breach);

    const now = this.clock.now();
    const enrollment = { partner, plan, userData, limitKeys, scanId: claimed?.scan.id ?? null, now };
    if (!this.kyc.local || this.faults.interrupts()) {
      const { account } = await this.writer.write(manager, {
        ...enrollment,
        state: PENDING_STATE,
        issueCard: false,
        point: 'accountWritten',
        reason: 'enrollmentStarted',
      });
      await call.commitKeepingLocks();
      this.faults.interruptAfter('accountWritten');
      const outcome = await this.continue(call, partner, plan, account.id, 'accountWritten');
      // Answered held or incomplete, it is counted now (enroll): a later completion counts nothing more.
      if (!isFinal(outcome)) this.progress.stageCounted(batch, account.id);
      return outcome;
    }
    const kyc = await this.kyc.screen({ programCode, accountType: plan.accountType, user: userData });
    const decision = decide(kyc.outcome, this.faults.has(BILL_CYCLE_FAULT), now);
    // The rows join the runner's batch: they are sent with the stored answer, in one statement.
    const rows = await this.writer.write(
      manager,
      {
        ...enrollment,
        state: decision.state,
        issueCard: decision.issueCard,
        point: decision.answer === 'completed' ? 'finished' : 'kycDecided',
        reason: decision.reason,
        ofacHit: kyc.ofacHit,
        outcomeCounted: decision.answer !== 'completed',
      },
      batch,
    );
    return answerOf(decision.answer, await this.views.renderNew(rows, partner));
  }

  /** The phased path: every phase after `point`, each committed on the call's connection. */
  private async continue(
    call: CallConnection,
    partner: PartnerConfig,
    plan: EnrollmentPlan,
    accountId: string,
    point: EnrollmentPoint,
  ): Promise<CallOutcome<AccountView>> {
    await call.commitKeepingLocks();
    const outcome = await this.completion.continueFrom(call, accountId, point);
    if (typeof outcome === 'object') return this.decline(call.manager, partner, plan.user.identifyingData.dateOfBirth, outcome.declined);
    return answerOf(outcome, await this.views.render(accountId, partner, call.manager));
  }

  /**
   * A limit decline. For an active-account limit whose most recent enrollment of this partner (the
   * limit count names only the caller's own) has the same date of birth, that enrollment is returned
   * beside the decline; otherwise only the error.
   */
  private async decline(manager: EntityManager, partner: PartnerConfig, dateOfBirth: string | null, breach: LimitBreach): Promise<CallOutcome<AccountView>> {
    const decline = new DomainError(breach.error);
    if (breach.scope !== 'active' || !breach.mostRecentAccountId) return Outcome.declined(decline);
    const existing = await this.accounts.findById(manager, breach.mostRecentAccountId);
    const holder = existing && existing.partnerId === partner.partnerId ? await this.users.primaryOf(manager, existing.id) : null;
    if (!existing || !holder || dateOfBirth === null || this.users.dateOfBirthOf(holder) !== dateOfBirth) return Outcome.declined(decline);
    return Outcome.declined(decline, await this.views.render(existing.id, partner, manager));
  }
}

function answerOf(outcome: Exclude<CompletionOutcome, object>, view: AccountView): CallOutcome<AccountView> {
  switch (outcome) {
    case 'completed':
    case 'closed':
      return Outcome.completed(view);
    case 'incomplete':
      return Outcome.incomplete(view);
    case 'held':
      return Outcome.held(new DomainError('OFAC_HOLD'), view);
  }
}

/**
 * A completed enrollment whose account waits on a KYC gate was referred for manual review. One whose
 * account care closed before it finished is not an enrollment's outcome: not counted.
 */
function outcomeLabel(outcome: CallOutcome<AccountView>): EnrollmentOutcome | undefined {
  if (outcome.kind === 'completed') {
    if (outcome.data.account.status === 'closed') return undefined;
    if (outcome.data.account.kycPendingGate !== 'none') return 'referred';
  }
  return outcome.kind;
}
