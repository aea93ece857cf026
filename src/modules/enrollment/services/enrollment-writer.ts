import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { PartnerConfig } from '../../../config/service-config';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import type { LimitKeyValue } from '../../accounts/services/account-limits.service';
import { AccountLimitsService } from '../../accounts/services/account-limits.service';
import type { AccountState } from '../../accounts/account.types';
import { AccountsService } from '../../accounts/services/accounts.service';
import type { NewAccountView } from '../../account-views/services/account-view.service';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { BusinessProfileService } from '../../business-profile/services/business-profile.service';
import type { OutboundEvent } from '../../events/event-types';
import { OutboxService } from '../../events/outbox.service';
import { UserRecordsService } from '../../user/services/user-records.service';
import type { UserDataPlain } from '../../user/user.types';
import { EnrollmentProgressRepository } from '../repositories/enrollment-progress.repository';
import type { EnrollmentPoint } from './enrollment-points';
import type { EnrollmentPlan } from './enrollment-rules.service';
import { CareAuditService } from '../../audit/care-audit.service';
import type { OfacHit } from '../kyc/kyc-provider';
import { accountUpdated, issueCard, PENDING_STATE } from '../../lifecycle/account-lifecycle';
import { ofacHoldAudit } from './enrollment-state';
import { ScanCaptureService } from './scan-capture.service';

export interface NewEnrollment {
  partner: PartnerConfig;
  plan: EnrollmentPlan;
  /** The user's plaintext, the scanned Matricula number included. */
  userData: UserDataPlain;
  limitKeys: LimitKeyValue[];
  scanId: string | null;
  now: Date;
  /** The account as written: pending (to be completed phase by phase) or its final state. */
  state: AccountState;
  issueCard: boolean;
  point: EnrollmentPoint;
  /** The accountUpdated reason when `state` differs from a plain pending account. */
  reason: string;
  /** A hold by the SDN list screening, recorded in the care audit trail. */
  ofacHit?: OfacHit;
  /** The call answers it held or incomplete and counts it (enrollment_outcomes_total): nothing later counts it again. */
  outcomeCounted?: boolean;
}

/**
 * Writes every row of a new enrollment in one statement of the caller's transaction (account,
 * purse, user, addresses, phones, limit keys, business profile, scan used, card, recovery point,
 * outbox rows) and returns them as written, for the answer to be built from memory.
 */
@Injectable()
export class EnrollmentWriter {
  constructor(
    private readonly accounts: AccountsService,
    private readonly users: UserRecordsService,
    private readonly limits: AccountLimitsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly businessProfiles: BusinessProfileService,
    private readonly scans: ScanCaptureService,
    private readonly progress: EnrollmentProgressRepository,
    private readonly outbox: OutboxService,
    private readonly audit: CareAuditService,
  ) {}

  /** Adds every row to `batch` (the caller sends it), or, without one, writes them at once on `manager`. */
  async write(manager: EntityManager, e: NewEnrollment, into?: WriteBatch): Promise<NewAccountView> {
    const { plan } = e;
    const batch = into ?? new WriteBatch();
    const accountRows = this.accounts.stageNew(
      batch,
      {
        partnerId: e.partner.partnerId,
        programCode: plan.program.programCode,
        accountType: plan.accountType,
        currency: plan.currency,
        identityKind: plan.identityKind,
        requestId: plan.request.requestId,
      },
      e.state,
      e.now,
    );
    const { account } = accountRows;
    const user = this.users.stageNew(batch, account.id, e.userData, 'active', e.now);
    this.limits.stage(batch, account, e.limitKeys);
    if (plan.businessData) this.businessProfiles.stageForEnrollment(batch, account.id, plan.businessData);
    if (e.scanId) this.scans.stageUsed(batch, e.scanId, account.id);
    const card = e.issueCard ? issueCard(account, [], { userId: user.id, ...e.userData }, plan.businessData?.businessName ?? null, randomUUID()) : null;
    const cards = (card?.issue ?? []).map((input) => this.instruments.build(input, e.now));
    for (const built of cards) this.instruments.stage(batch, built);
    this.progress.stage(batch, account.id, plan.program.programCode, e.point, e.now, e.outcomeCounted === true);
    const changed = accountUpdated(account, PENDING_STATE, e.reason);
    const events: OutboundEvent[] = [...(changed ? [changed] : []), ...(card?.events ?? [])];
    this.outbox.stage(batch, events);
    if (e.ofacHit) this.audit.stage(batch, ofacHoldAudit(account, PENDING_STATE, e.ofacHit));
    if (!into) await batch.execute(manager);
    return { ...accountRows, user, userData: e.userData, cards };
  }
}
