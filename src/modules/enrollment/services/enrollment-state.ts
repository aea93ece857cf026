import { embossName } from '../../../common/validation/characters';
import type { Account, AccountStatus, KycPendingGate } from '../../accounts/entities/account.entity';
import type { AccountPatch, AccountState } from '../../accounts/services/account-records.service';
import type { NewPaymentInstrument } from '../../accounts/services/payment-instrument.service';
import type { OutboundEvent } from '../../events/event-types';
import type { AuditEntry } from '../../audit/care-audit.service';
import type { KycOutcome, OfacHit } from '../kyc/kyc-provider';

/** SERVICE.md's enrollment state rules, shared by a new enrollment decided at once and one completed phase by phase. */
export const OFAC_REVIEW = 'ofacReview';

export const KYC_PATCH: Record<KycOutcome, AccountPatch> = {
  pass: {},
  refer: { kycPendingGate: 'manual', statusReason: 'underReview' },
  ofacHold: { statusReason: OFAC_REVIEW },
};

/** A new account before any decision: pending, no cycle day, never activated. */
export const PENDING_STATE: AccountState = { status: 'pending', statusReason: null, kycPendingGate: 'none', accountCycleDay: null, activatedAt: null };

/** The first day of the statement cycle: the UTC day of completion, capped at 28. */
export function cycleDayOf(now: Date): number {
  return Math.min(now.getUTCDate(), 28);
}

/** Status normal needs a bill cycle date; a KYC gate keeps the account pending (yet active). */
export function activatedStatus(account: { kycPendingGate: KycPendingGate; accountCycleDay: number | null }): AccountStatus {
  return account.kycPendingGate === 'none' && account.accountCycleDay !== null ? 'normal' : 'pending';
}

type StateView = Pick<Account, 'status' | 'statusReason' | 'kycPendingGate' | 'accountCycleDay'>;

export function publishedState(account: StateView) {
  return { status: account.status, statusReason: account.statusReason, kycPendingGate: account.kycPendingGate, accountCycleDay: account.accountCycleDay };
}

/** accountUpdated when a published field changed, else null. */
export function accountUpdated(after: Account, before: StateView, reason: string): OutboundEvent | null {
  const now = publishedState(after);
  const previous = publishedState(before);
  if (JSON.stringify(now) === JSON.stringify(previous)) return null;
  return { partnerId: after.partnerId, programCode: after.programCode, accountId: after.id, eventType: 'accountUpdated', data: { ...now, previous, reason } };
}

export function cardIssued(account: Account, card: { id: string; status: string }): OutboundEvent {
  return {
    partnerId: account.partnerId,
    programCode: account.programCode,
    accountId: account.id,
    eventType: 'cardUpdated',
    data: { paymentIdentifier: card.id, status: card.status, previousStatus: null, reason: 'issued' },
  };
}

/** The enrollment's card: names embossed; not usable while a KYC gate is open. */
export function enrollmentCard(account: Pick<Account, 'id' | 'kycPendingGate'>, userId: string, names: { firstName: string; lastName: string }, businessName: string | null): NewPaymentInstrument {
  return {
    accountId: account.id,
    userId,
    status: account.kycPendingGate === 'none' ? 'active' : 'inactive',
    embossedName: embossName(`${names.firstName} ${names.lastName}`),
    embossedBusinessName: businessName ? embossName(businessName) : null,
  };
}

/** A new enrollment decided at once: where it ends and what the partner is answered. */
export interface Decision {
  state: AccountState;
  issueCard: boolean;
  answer: 'completed' | 'held' | 'incomplete';
  /** Why the state moved from PENDING_STATE (the accountUpdated reason). */
  reason: string;
}

export function decide(kyc: KycOutcome, billCycleFails: boolean, now: Date): Decision {
  const decided = { ...PENDING_STATE, ...KYC_PATCH[kyc] };
  if (kyc === 'ofacHold') return { state: decided, issueCard: false, answer: 'held', reason: 'kyc.ofacHold' };
  if (billCycleFails) return { state: decided, issueCard: false, answer: 'incomplete', reason: `kyc.${kyc}` };
  const withCycle = { ...decided, accountCycleDay: cycleDayOf(now), activatedAt: now };
  return { state: { ...withCycle, status: activatedStatus(withCycle) }, issueCard: true, answer: 'completed', reason: 'enrollmentCompleted' };
}

/** The care audit entry of a hold by the SDN list screening: which entry matched, and how closely. */
export const SCREENING_ACTOR = 'ofac-screening';

export function ofacHoldAudit(account: Account, before: StateView, hit: OfacHit): AuditEntry {
  return {
    accountId: account.id,
    actor: SCREENING_ACTOR,
    action: 'ofacHold',
    before: { ...publishedState(before), paymentInstruments: [] },
    after: { ...publishedState(account), paymentInstruments: [] },
    detail: { ...hit },
  };
}
