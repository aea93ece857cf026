import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { SandboxFaults } from '../../../common/context/sandbox-faults';
import type { Principal } from '../../../common/context/request-context';
import { DomainError } from '../../../common/errors/domain-error';
import { AppConfig } from '../../../config/app-config';
import type { PartnerConfig } from '../../../config/service-config';
import { AccountLimitsService, LimitBreach } from '../../accounts/services/account-limits.service';
import { AccountRecordsService } from '../../accounts/services/account-records.service';
import { AccountView, AccountViewService } from '../../accounts/services/account-view.service';
import { BusinessProfileService } from '../../business-profile/services/business-profile.service';
import { IdempotencyCall, IdempotencyContext } from '../../idempotency/idempotency-context';
import { IdempotencyStore } from '../../idempotency/idempotency.store';
import { TransactionRunner } from '../../locking/transaction-runner';
import { UserRecordsService } from '../../user/services/user-records.service';
import type { CreateEnrollmentDto } from '../dtos/create-enrollment.dto';
import { EnrollmentCompletionService } from './enrollment-completion.service';
import { DECLINED_POINT } from './enrollment-points';
import { EnrollmentPlan, EnrollmentRulesService } from './enrollment-rules.service';
import { ScanCaptureService } from './scan-capture.service';

/**
 * POST enrollments: rules first, then the first phase (user, account, purse, limit keys, business
 * profile, onboardingID claimed) in one transaction under the limit locks, then the remaining
 * phases. A retry with the same requestId resumes after the last recovery point reached.
 */
@Injectable()
export class EnrollmentService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly rules: EnrollmentRulesService,
    private readonly tx: TransactionRunner,
    private readonly idempotencyContext: IdempotencyContext,
    private readonly idempotency: IdempotencyStore,
    private readonly accounts: AccountRecordsService,
    private readonly users: UserRecordsService,
    private readonly limits: AccountLimitsService,
    private readonly businessProfiles: BusinessProfileService,
    private readonly scans: ScanCaptureService,
    private readonly completion: EnrollmentCompletionService,
    private readonly views: AccountViewService,
    private readonly faults: SandboxFaults,
  ) {}

  async enroll(principal: Principal, programCode: string, dto: CreateEnrollmentDto): Promise<AccountView> {
    const program = this.config.service.programs.get(programCode);
    if (!program) throw new DomainError('PROGRAM_NOT_ALLOWED');
    const plan = this.rules.check(program, dto);
    const call = this.idempotencyContext.current();
    let accountId = call?.record?.accountId ?? null;
    let point = call?.record?.recoveryPoint ?? 'started';
    if (!accountId) {
      const opened = await this.open(principal.partner, plan, dto, call);
      if (!('accountId' in opened)) throw await this.decline(principal.partner, plan, opened.breach);
      accountId = opened.accountId;
      point = 'accountWritten';
      this.faults.interruptAfter('accountWritten');
    }
    const outcome = await this.completion.continueFrom(accountId, call?.key ?? null, point);
    // Reads go through the call's locked connection too: waiting callers may hold every pooled one.
    const id = accountId;
    const view = await this.tx.read((manager) => this.views.render(id, principal.partner, manager));
    // Held or short of its bill cycle: not the final answer, so it is not stored for replay.
    if (outcome !== 'completed' && call) call.incomplete = true;
    if (outcome === 'held') throw new DomainError('OFAC_HOLD', { payload: { ...view } });
    return view;
  }

  async get(principal: Principal, programCode: string, accountIdentifier: string): Promise<AccountView> {
    const account = await this.accounts.requireForPartner(this.dataSource.manager, principal.partner.partnerId, programCode, accountIdentifier);
    return this.views.render(account.id, principal.partner);
  }

  /** Phase 1, one transaction: claim the onboardingID, lock and count the limit keys, write the rows. */
  private open(partner: PartnerConfig, plan: EnrollmentPlan, dto: CreateEnrollmentDto, call: IdempotencyCall | undefined) {
    return this.tx.run(async (manager): Promise<{ accountId: string } | { breach: LimitBreach }> => {
      if (call) await this.idempotency.begin(manager, call.key, call.operation, call.fingerprint, dto);
      const user = { ...plan.user, identifyingData: { ...plan.user.identifyingData } };
      const claimed = plan.onboardingID
        ? await this.scans.claim(manager, partner.partnerId, plan.program.programCode, plan.onboardingID, plan.user.identifyingData.matriculaId)
        : null;
      if (claimed) user.identifyingData.matriculaId = claimed.idNumber;
      const keys = this.rules.limitKeys(plan);
      const breach = await this.limits.lockAndCheck(manager, {
        programCode: plan.program.programCode,
        accountType: plan.accountType,
        limits: plan.program.limits[plan.accountType],
        keys,
      });
      if (breach) {
        if (call) await this.idempotency.advance(manager, call.key, DECLINED_POINT, { state: { declined: breach.error } });
        return { breach };
      }
      const { account } = await this.accounts.create(manager, {
        partnerId: partner.partnerId,
        programCode: plan.program.programCode,
        accountType: plan.accountType,
        currency: plan.currency,
        identityKind: plan.identityKind,
        requestId: call?.key.requestId ?? dto.requestId,
      });
      await this.users.create(manager, account.id, user, 'active');
      await this.limits.record(manager, account, keys);
      if (plan.businessData) await this.businessProfiles.createForEnrollment(manager, account.id, plan.businessData);
      if (claimed) await this.scans.markUsed(manager, claimed.scan.id, account.id);
      if (call) await this.idempotency.advance(manager, call.key, 'accountWritten', { accountId: account.id });
      return { accountId: account.id };
    });
  }

  /**
   * A limit decline. For an active-account limit whose most recent enrollment has the same date of
   * birth (and is this partner's), that enrollment is returned beside the decline; otherwise only the error.
   */
  private decline(partner: PartnerConfig, plan: EnrollmentPlan, breach: LimitBreach): Promise<DomainError> {
    return this.tx.run((manager) => this.declineWith(manager, partner, plan, breach));
  }

  private async declineWith(manager: EntityManager, partner: PartnerConfig, plan: EnrollmentPlan, breach: LimitBreach): Promise<DomainError> {
    if (breach.scope === 'active' && breach.mostRecentAccountId) {
      const existing = await this.accounts.findById(manager, breach.mostRecentAccountId);
      const holder = existing && existing.partnerId === partner.partnerId ? await this.users.primaryOf(manager, existing.id) : null;
      if (existing && holder && this.users.dateOfBirthOf(holder) === plan.user.identifyingData.dateOfBirth) {
        return new DomainError(breach.error, { payload: { ...(await this.views.render(existing.id, partner, manager)) } });
      }
    }
    return new DomainError(breach.error);
  }
}
