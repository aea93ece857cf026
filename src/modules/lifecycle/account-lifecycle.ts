import { DomainError } from '../../common/errors/domain-error';
import { embossName } from '../../common/validation/characters';
import type { Account, AccountStatus } from '../accounts/account.types';
import type { PaymentInstrumentStatus } from '../accounts/account.types';
import type { AccountPatch, AccountState } from '../accounts/account.types';
import type { NewPaymentInstrument } from '../accounts/services/payment-instrument.service';
import type { OutboundEvent } from '../events/event-types';

/**
 * SERVICE.md's state rules for accounts and their cards, in one place. Every transition is a pure
 * function: it takes the current state and returns the columns that change, the card moves, the
 * cards to issue and the events to emit, or refuses with the catalogue's error. `LifecycleWriter`
 * applies a transition in the caller's transaction; enrollment, care and the unblock job all go
 * through here.
 */

/** statusReason values (SERVICE.md names underReview; CONTRACT leaves the others to us). */
export const STATUS_REASON = {
  careLock: 'careLock',
  fraudBlock: 'fraudBlock',
  ofacReview: 'ofacReview',
  underReview: 'underReview',
  limitExceeded: 'limitExceeded',
} as const;

/** What a KYC/OFAC decision says about a new customer. */
export type KycOutcome = 'pass' | 'refer' | 'ofacHold';

/** The account fields the rules read. */
export type LifecycleAccount = Pick<Account, 'id' | 'partnerId' | 'programCode' | keyof AccountPatch>;

export interface LifecycleCard {
  id: string;
  status: PaymentInstrumentStatus;
}

export interface CardMove {
  id: string;
  from: PaymentInstrumentStatus;
  to: PaymentInstrumentStatus;
  replacedBy?: string;
}

/** A card to issue; `id` is chosen by the caller so that the events can name it. */
export interface CardToIssue extends NewPaymentInstrument {
  id: string;
}

/** The holder a card is embossed for. */
export interface CardHolder {
  userId: string;
  firstName: string;
  lastName: string;
}

export interface Transition {
  /** Account columns that change (empty when none). */
  patch: AccountPatch;
  cardMoves: CardMove[];
  issue: CardToIssue[];
  events: OutboundEvent[];
}

type Published = Pick<Account, 'status' | 'statusReason' | 'kycPendingGate' | 'accountCycleDay'>;

/** The state fields partners see in accountUpdated. */
export function publishedState(account: Published) {
  return { status: account.status, statusReason: account.statusReason, kycPendingGate: account.kycPendingGate, accountCycleDay: account.accountCycleDay };
}

/** A new account before any decision: pending, no cycle day, never activated. */
export const PENDING_STATE: AccountState = { status: 'pending', statusReason: null, kycPendingGate: 'none', accountCycleDay: null, activatedAt: null };

/** The first day of the statement cycle: the UTC day of completion, capped at 28 (SERVICE.md: 1 to 28). */
export function cycleDayOf(now: Date): number {
  return Math.min(now.getUTCDate(), 28);
}

/** SERVICE.md: status normal needs a bill cycle date; a KYC gate keeps the account pending (yet active). */
export function activatedStatus(account: Pick<Account, 'kycPendingGate' | 'accountCycleDay'>): AccountStatus {
  return account.kycPendingGate === 'none' && account.accountCycleDay !== null ? 'normal' : 'pending';
}

/** Where an account rests once nothing holds it: normal needs a cycle day and a completed enrollment. */
export function restingStatus(account: Pick<Account, 'accountCycleDay' | 'activatedAt'>): AccountStatus {
  return account.accountCycleDay !== null && account.activatedAt !== null ? 'normal' : 'pending';
}

/**
 * What an event says of an account: its published state, with no cycle day while it was never
 * activated, as GET shows it (CONTRACT section 6: the enrollment's, shown once it completes).
 */
function announcedState(account: Published & Pick<Account, 'activatedAt'>) {
  const state = publishedState(account);
  return account.activatedAt === null ? { ...state, accountCycleDay: null } : state;
}

/** accountUpdated when a field partners see changed (announcedState), else null. */
export function accountUpdated(after: LifecycleAccount, before: Published & Pick<Account, 'activatedAt'>, reason: string): OutboundEvent | null {
  const now = announcedState(after);
  const previous = announcedState(before);
  if (JSON.stringify(now) === JSON.stringify(previous)) return null;
  return { partnerId: after.partnerId, programCode: after.programCode, accountId: after.id, eventType: 'accountUpdated', data: { ...now, previous, reason } };
}

function cardUpdated(account: LifecycleAccount, data: Record<string, unknown>): OutboundEvent {
  return { partnerId: account.partnerId, programCode: account.programCode, accountId: account.id, eventType: 'cardUpdated', data };
}

/**
 * Builds a transition: the patch applied in memory, then the events of every change, account first.
 * No card event while the account was never activated: its cards are not shown yet (GET answers
 * `[]`); `activate` announces them.
 */
function transition(
  account: LifecycleAccount,
  patch: AccountPatch,
  reason: string,
  cardMoves: CardMove[] = [],
  issue: Array<CardToIssue & { replaces?: string }> = [],
): Transition {
  const after = { ...account, ...patch };
  const changed = accountUpdated(after, account, reason);
  // Never activated: no card is shown yet, so none is announced.
  const events = [...(changed ? [changed] : []), ...(after.activatedAt === null ? [] : cardEvents(account, reason, cardMoves, issue))];
  return { patch, cardMoves, issue: issue.map(({ replaces: _replaces, ...card }) => card), events };
}

/** cardUpdated for each card a transition moves or issues. */
function cardEvents(
  account: LifecycleAccount,
  reason: string,
  cardMoves: readonly CardMove[],
  issue: ReadonlyArray<LifecycleCard & { replaces?: string }>,
): OutboundEvent[] {
  const moved = cardMoves.map((move) =>
    cardUpdated(account, {
      paymentIdentifier: move.id,
      status: move.to,
      previousStatus: move.from,
      reason,
      ...(move.replacedBy ? { replacedBy: move.replacedBy } : {}),
    }),
  );
  const issued = issue.map(({ replaces, ...card }) =>
    cardUpdated(account, {
      paymentIdentifier: card.id,
      status: card.status,
      previousStatus: null,
      reason: replaces ? reason : 'issued',
      ...(replaces ? { replaces } : {}),
    }),
  );
  return [...moved, ...issued];
}

function moves(cards: readonly LifecycleCard[], from: readonly PaymentInstrumentStatus[], to: PaymentInstrumentStatus): CardMove[] {
  return cards.filter((card) => from.includes(card.status) && card.status !== to).map((card) => ({ id: card.id, from: card.status, to }));
}

/** Throws CARE_NOT_APPLICABLE when there is a reason to refuse. */
function refuseFor(reason: string | null): void {
  if (reason !== null) throw new DomainError('CARE_NOT_APPLICABLE');
}

// ---- What care may do ----

/** The care operations (CONTRACT section 8) that act on the whole account. */
export const ACCOUNT_CARE_OPERATIONS = ['lock', 'unlock', 'fraudBlock', 'removeFraudBlock', 'ofacClear', 'kycGateClear', 'close'] as const;
export type AccountCareOperation = (typeof ACCOUNT_CARE_OPERATIONS)[number];

/** The state the care rules read: an account row, or its view (the care console's). */
export interface CareState {
  status: string;
  statusReason: string | null;
  kycPendingGate: string;
}

/** Why an account is not live for care (closed, locked, held for OFAC review), or null. */
function notLive(account: CareState): string | null {
  if (account.status === 'closed') return 'The account is closed.';
  if (account.status === 'locked')
    return account.statusReason === STATUS_REASON.fraudBlock ? 'The account is locked by a fraud block.' : 'The account is locked by care.';
  if (account.statusReason === STATUS_REASON.ofacReview) return 'The account is held for OFAC review.';
  return null;
}

/**
 * Why care cannot apply `operation` to an account in this state, or null when it can. The one home
 * of these rules: the care transitions below refuse (CARE_NOT_APPLICABLE) exactly when it gives a
 * reason, and the care console shows the reason beside the operation it disables.
 */
export function careRefusal(operation: AccountCareOperation, account: CareState): string | null {
  switch (operation) {
    case 'lock':
    case 'fraudBlock':
      return notLive(account);
    case 'unlock':
      if (account.status === 'locked' && account.statusReason === STATUS_REASON.careLock) return null;
      return account.status === 'locked' && account.statusReason === STATUS_REASON.fraudBlock
        ? 'The account is locked by a fraud block: remove the fraud block instead.'
        : 'The account is not locked by care.';
    case 'removeFraudBlock':
      return account.status === 'locked' && account.statusReason === STATUS_REASON.fraudBlock ? null : 'The account has no fraud block.';
    case 'ofacClear':
      return account.status === 'pending' && account.statusReason === STATUS_REASON.ofacReview ? null : 'The account is not held for OFAC review.';
    case 'kycGateClear':
      return account.kycPendingGate === 'manual' ? notLive(account) : 'The account has no manual KYC gate to clear.';
    case 'close':
      return account.status === 'closed' ? 'The account is already closed.' : null;
  }
}

const REPLACEABLE: readonly string[] = ['active', 'inactive', 'blocked'] satisfies PaymentInstrumentStatus[];

/** Why care cannot replace this card of this account, or null when it can (see careRefusal). */
export function cardReplacementRefusal(account: CareState, card: { status: string }): string | null {
  if (account.status === 'closed') return 'The account is closed.';
  return REPLACEABLE.includes(card.status) ? null : `A ${card.status} card cannot be replaced.`;
}

// ---- Enrollment ----

/** KYC referral: the manual gate, under review. */
export function refer(account: LifecycleAccount): Transition {
  return transition(account, { kycPendingGate: 'manual', statusReason: STATUS_REASON.underReview }, 'kyc.refer');
}

/** OFAC hold: pending, held for review; no card, no activation until care clears it. */
export function hold(account: LifecycleAccount): Transition {
  return transition(account, { statusReason: STATUS_REASON.ofacReview }, 'kyc.ofacHold');
}

/** The KYC decision applied to a pending account. */
export function decideKyc(account: LifecycleAccount, outcome: KycOutcome): Transition {
  if (outcome === 'refer') return refer(account);
  if (outcome === 'ofacHold') return hold(account);
  return transition(account, {}, 'kyc.pass');
}

/** Care's OFAC clearance: the hold lifted; the enrollment then continues as requested. */
export function clearOfac(account: LifecycleAccount): Transition {
  refuseFor(careRefusal('ofacClear', account));
  return transition(account, { statusReason: null }, 'ofacCleared');
}

/** The bill cycle date (once). */
export function assignCycleDay(account: LifecycleAccount, now: Date): Transition {
  return transition(account, account.accountCycleDay === null ? { accountCycleDay: cycleDayOf(now) } : {}, 'billCycleAssigned');
}

/**
 * Completion of the enrollment: activated, normal when it has a cycle day and no gate (once). The
 * cards issued before (`cards`, by an enrollment in phases) are announced now, as the answer first
 * shows them. A card issued `inactive` under a KYC gate that care cleared before the enrollment
 * completed becomes active as the account becomes normal (CONTRACT section 8: cards left inactive
 * by a KYC referral become active once the gate clears); it is announced as it is then.
 */
export function activate(account: LifecycleAccount, cards: readonly LifecycleCard[], now: Date): Transition {
  if (account.activatedAt !== null) return transition(account, {}, 'enrollmentCompleted');
  const status = activatedStatus(account);
  const change = transition(account, { activatedAt: now, ...(status === 'normal' ? { status } : {}) }, 'enrollmentCompleted');
  const cardMoves = status === 'normal' ? moves(cards, ['inactive'], 'active') : [];
  const shown = cards.map((card) => (cardMoves.some((move) => move.id === card.id) ? { ...card, status: 'active' as const } : card));
  return { ...change, cardMoves, events: [...change.events, ...cardEvents(account, 'enrollmentCompleted', [], shown)] };
}

/**
 * A limit that filled up while the enrollment was pending: the never-activated account is closed
 * (`closing`), with the card an interrupted enrollment may already have issued.
 */
export function declineForLimit(account: LifecycleAccount, cards: readonly LifecycleCard[], now: Date): Transition {
  return closing(account, cards, STATUS_REASON.limitExceeded, now, 'enrollmentDeclined');
}

/** The enrollment's card, once: embossed with the holder's names, not usable while a KYC gate is open. */
export function issueCard(
  account: LifecycleAccount,
  cards: readonly LifecycleCard[],
  holder: CardHolder,
  businessName: string | null,
  cardId: string,
): Transition {
  if (cards.length > 0 || account.status === 'closed') return transition(account, {}, 'issued');
  return transition(account, {}, 'issued', [], [newCard(account, holder, businessName, cardId, account.kycPendingGate === 'none' ? 'active' : 'inactive')]);
}

function newCard(account: LifecycleAccount, holder: CardHolder, businessName: string | null, id: string, status: PaymentInstrumentStatus): CardToIssue {
  return {
    id,
    accountId: account.id,
    userId: holder.userId,
    status,
    embossedName: embossName(`${holder.firstName} ${holder.lastName}`),
    embossedBusinessName: businessName ? embossName(businessName) : null,
  };
}

/** Where a new enrollment decided at once ends, and what the partner is answered. */
export interface Decision {
  state: AccountState;
  issueCard: boolean;
  answer: 'completed' | 'held' | 'incomplete';
  /** Why the state moved from PENDING_STATE (the accountUpdated reason). */
  reason: string;
}

/** A new enrollment decided in one transaction: the same transitions as the phased path, composed in memory. */
export function decide(kyc: KycOutcome, billCycleFails: boolean, now: Date): Decision {
  const decided = { ...PENDING_STATE, ...decideKyc(blank(), kyc).patch };
  if (kyc === 'ofacHold') return { state: decided, issueCard: false, answer: 'held', reason: 'kyc.ofacHold' };
  if (billCycleFails) return { state: decided, issueCard: false, answer: 'incomplete', reason: `kyc.${kyc}` };
  const withCycle = { ...blank(), ...decided, ...assignCycleDay({ ...blank(), ...decided }, now).patch };
  const active = { ...withCycle, ...activate(withCycle, [], now).patch };
  const state: AccountState = {
    status: active.status,
    statusReason: active.statusReason,
    kycPendingGate: active.kycPendingGate,
    accountCycleDay: active.accountCycleDay,
    activatedAt: active.activatedAt,
  };
  return { state, issueCard: true, answer: 'completed', reason: 'enrollmentCompleted' };
}

function blank(): LifecycleAccount {
  return {
    id: '',
    partnerId: '',
    programCode: '',
    ...PENDING_STATE,
    closedAt: null,
    restoreStatus: null,
    restoreStatusReason: null,
    unblockRunId: null,
    unblockAttempt: 0,
  };
}

// ---- Care ----

/** Care lock: the state before it kept on the account, for unlock to restore. */
export function lock(account: LifecycleAccount): Transition {
  refuseFor(careRefusal('lock', account));
  return transition(
    account,
    { status: 'locked', statusReason: STATUS_REASON.careLock, restoreStatus: account.status, restoreStatusReason: account.statusReason },
    'care.lock',
  );
}

/** Unlock restores what the lock kept (or, for a lock without it, the account's resting state). */
export function unlock(account: LifecycleAccount): Transition {
  refuseFor(careRefusal('unlock', account));
  const restored: AccountPatch =
    account.restoreStatus !== null
      ? {
          status: account.restoreStatus,
          statusReason: account.restoreStatusReason,
          // Under review is the manual gate's reason: kept by the lock, or left by an unblock run that ended under it (unblockExhausted).
          ...(account.restoreStatusReason === STATUS_REASON.underReview ? { kycPendingGate: 'manual' as const } : {}),
        }
      : {
          status: account.activatedAt !== null && account.accountCycleDay !== null && account.kycPendingGate === 'none' ? 'normal' : 'pending',
          statusReason: account.kycPendingGate === 'manual' ? STATUS_REASON.underReview : null,
        };
  return transition(account, { ...restored, restoreStatus: null, restoreStatusReason: null }, 'care.unlock');
}

/** Care's close (`closing`). */
export function close(account: LifecycleAccount, cards: readonly LifecycleCard[], now: Date): Transition {
  refuseFor(careRefusal('close', account));
  return closing(account, cards, null, now, 'care.close');
}

/**
 * Closing, by care or by a limit decline, ends the account, every card still usable and any KYC
 * review (gate none): a closed account is no longer active (SERVICE.md: active is activated and
 * normal or KYC-gated), and nothing could clear its gate (kycGate/clear refuses a closed account).
 */
function closing(account: LifecycleAccount, cards: readonly LifecycleCard[], statusReason: string | null, now: Date, reason: string): Transition {
  return transition(
    account,
    { status: 'closed', statusReason, kycPendingGate: 'none', closedAt: now },
    reason,
    moves(cards, ['active', 'inactive', 'blocked'], 'closed'),
  );
}

/** Fraud block: account locked, usable cards blocked; a running unblock stops applying. */
export function fraudBlock(account: LifecycleAccount, cards: readonly LifecycleCard[]): Transition {
  refuseFor(careRefusal('fraudBlock', account));
  return transition(
    account,
    { status: 'locked', statusReason: STATUS_REASON.fraudBlock, restoreStatus: account.status, restoreStatusReason: account.statusReason, unblockRunId: null },
    'care.fraudBlock',
    blockCards(cards),
  );
}

/** Cards that block: the usable ones. */
export function blockCards(cards: readonly LifecycleCard[]): CardMove[] {
  return moves(cards, ['active', 'inactive'], 'blocked');
}

/**
 * SERVICE.md: the account is set "healthy and normal" whatever it was before (pending when it never
 * had a cycle day); the cards stay blocked for the unblock run `runId` to retry.
 */
export function removeFraudBlock(account: LifecycleAccount, runId: string): Transition {
  refuseFor(careRefusal('removeFraudBlock', account));
  return transition(
    account,
    {
      status: restingStatus(account),
      statusReason: null,
      kycPendingGate: 'none',
      restoreStatus: null,
      restoreStatusReason: null,
      unblockRunId: runId,
      unblockAttempt: 0,
    },
    'care.fraudBlockRemoved',
  );
}

/** Whether attempt `attempt` of unblock run `runId` still applies: the latest run, not done, account not blocked or closed again. */
export function unblockApplies(account: LifecycleAccount, runId: string, attempt: number): boolean {
  return account.status !== 'locked' && account.status !== 'closed' && account.unblockRunId === runId && account.unblockAttempt < attempt;
}

/**
 * Whether attempt `attempt` of run `runId` waits for care's lock to end: the run is still the latest
 * and not done, and the account is care-locked (a fraud block would have replaced the run). Care's
 * unlock restores the account, and the run goes on from the attempt it paused at, within its window
 * (`unblockStep`); the lock found by the attempt due at the window's end ends the run (`unblockExhausted`).
 */
export function unblockWaitsForUnlock(account: LifecycleAccount, runId: string, attempt: number): boolean {
  return account.status === 'locked' && account.statusReason === STATUS_REASON.careLock && account.unblockRunId === runId && account.unblockAttempt < attempt;
}

/** A successful unblock: the blocked cards usable again (inactive under a KYC gate). */
export function unblockCards(account: LifecycleAccount, cards: readonly LifecycleCard[], attempt: number): Transition {
  return transition(account, { unblockAttempt: attempt }, 'care.unblock', moves(cards, ['blocked'], account.kycPendingGate === 'none' ? 'active' : 'inactive'));
}

/** A failed unblock attempt with retries left: only recorded. */
export function unblockFailed(account: LifecycleAccount, attempt: number): Transition {
  return transition(account, { unblockAttempt: attempt }, 'care.unblockFailed');
}

/**
 * How late after its window's end an attempt may still call the processor: the queue polls, so the
 * last retry, due at the end, runs a moment after it. Later (the service was down, the queue far
 * behind) the run ends as exhausted instead.
 */
export const UNBLOCK_LATENESS_MS = 5_000;

/** An attempt of an unblock run: the run, the attempt's number, and its window's end (epoch ms; Infinity for a run without one). */
export interface UnblockAttempt {
  runId: string;
  attempt: number;
  deadlineMs: number;
}

/** What an unblock attempt does next, decided under the account's row lock. */
export type UnblockStep =
  /** The run no longer applies: superseded by a new fraud block, the account closed, or the attempt already handled. */
  | { step: 'skip' }
  /** Care's lock holds: look again after `afterMs`, never past the window's end. */
  | { step: 'wait'; afterMs: number }
  /** Call the processor. */
  | { step: 'try' }
  | { step: 'succeed' }
  /** Failed with retries left inside the window: the next one after `afterMs`, cut to the window's end. */
  | { step: 'retry'; afterMs: number }
  /** The run ends without the card (`unblockExhausted`). */
  | { step: 'exhaust' };

/**
 * SERVICE.md: the unblock is "retried automatically up to 3 times, all within 15 minutes". A run's
 * window ends at its removal plus the delays' sum, and every step keeps to it: a retry is never due
 * after the end. Care's lock found by an attempt at or after the end, a failure at or after it, or an
 * attempt picked up more than UNBLOCK_LATENESS_MS after it ends the run as exhausted (the attempt due
 * at the end runs at the queue's next poll: an unlock before then lets it try). `outcome` is the
 * processor's answer: undefined before it is called (then `try`, `wait`, `skip` or `exhaust`).
 */
export function unblockStep(account: LifecycleAccount, run: UnblockAttempt, nowMs: number, delaysMs: readonly number[], outcome?: boolean): UnblockStep {
  const left = run.deadlineMs - nowMs;
  if (unblockWaitsForUnlock(account, run.runId, run.attempt))
    return left > 0 ? { step: 'wait', afterMs: Math.min(delaysMs[0] ?? 0, left) } : { step: 'exhaust' };
  if (!unblockApplies(account, run.runId, run.attempt)) return { step: 'skip' };
  if (outcome === undefined) return left < -UNBLOCK_LATENESS_MS ? { step: 'exhaust' } : { step: 'try' };
  if (outcome) return { step: 'succeed' };
  const next = delaysMs[run.attempt];
  return next !== undefined && left > 0 ? { step: 'retry', afterMs: Math.min(next, left) } : { step: 'exhaust' };
}

/**
 * The run ends without the card (the last retry failed, or the window closed first: `unblockStep`):
 * the manual gate, under review, for care to finish by hand. On a care-locked account the review is
 * what unlock will restore (restoreStatusReason underReview, and unlock opens the gate with it):
 * the gate would make the locked account count as active at once, past the active limits that
 * unlock's admission checks.
 */
export function unblockExhausted(account: LifecycleAccount, attempt: number): Transition {
  if (account.status === 'locked')
    return transition(account, { unblockAttempt: attempt, restoreStatusReason: STATUS_REASON.underReview }, 'care.unblockFailed');
  return transition(account, { unblockAttempt: attempt, kycPendingGate: 'manual', statusReason: STATUS_REASON.underReview }, 'care.unblockFailed');
}

/** Care clears the KYC gate: gate none, resting status; when normal, inactive or blocked cards become active. */
export function clearKycGate(account: LifecycleAccount, cards: readonly LifecycleCard[]): Transition {
  refuseFor(careRefusal('kycGateClear', account));
  const status = restingStatus(account);
  return transition(
    account,
    { kycPendingGate: 'none', statusReason: null, status },
    'care.kycGateClear',
    status === 'normal' ? moves(cards, ['inactive', 'blocked'], 'active') : [],
  );
}

/** A new card with the holder's current names; the old one becomes replaced. The new one is as usable as the account allows. */
export function replaceCard(account: LifecycleAccount, old: LifecycleCard, holder: CardHolder, businessName: string | null, newCardId: string): Transition {
  refuseFor(cardReplacementRefusal(account, old));
  const status: PaymentInstrumentStatus =
    account.statusReason === STATUS_REASON.fraudBlock ? 'blocked' : account.kycPendingGate === 'manual' || old.status === 'inactive' ? 'inactive' : 'active';
  return transition(
    account,
    {},
    'care.replace',
    [{ id: old.id, from: old.status, to: 'replaced', replacedBy: newCardId }],
    [{ ...newCard(account, holder, businessName, newCardId, status), replaces: old.id }],
  );
}
