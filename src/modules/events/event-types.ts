/** CONTRACT.md section 7: every `eventType` a partner may receive. */
export const EVENT_TYPES = [
  'transaction',
  'statementReady',
  'accountUpdated',
  'interestPaid',
  'achTransfer',
  'failedTransfer',
  'nocAlert',
  'userUpdated',
  'cardUpdated',
  'checkUpdated',
  'eWallet',
  'billPayment',
  'paperCheck',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What a partner is told of one delivery attempt (CONTRACT section 7), never a network error's text:
 * `delivered` (a 2xx), `httpStatus` (another status, beside it), `timeout`, `connectionRefused` (no HTTP
 * answer: the connection could not be opened, or closed without one), `tls` (the handshake or the
 * certificate failed), `refusedAddress` (production: the host resolves to a non-public address).
 */
export const DELIVERY_OUTCOMES = ['delivered', 'httpStatus', 'timeout', 'connectionRefused', 'tls', 'refusedAddress'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/**
 * An event to publish. `data` is what the partner receives under `data`: identifiers and status
 * values only, never plaintext of encrypted fields (names, addresses, SSN/ITIN, DOB, email, phones).
 */
export interface OutboundEvent {
  partnerId: string;
  programCode: string;
  /** The account the event is about (its accountIdentifier), or null for partner-level events. */
  accountId: string | null;
  eventType: EventType;
  data: Record<string, unknown>;
}

/** Suggested `data` of accountUpdated: the account's state after the change, and what it was before. */
export interface AccountUpdatedData {
  status: string;
  statusReason: string | null;
  kycPendingGate: string;
  accountCycleDay: number | null;
  previous?: { status: string; statusReason: string | null; kycPendingGate: string; accountCycleDay: number | null };
  /** What caused the change, e.g. `enrollmentCompleted`, `care.lock`. */
  reason?: string;
}

/** Suggested `data` of cardUpdated. */
export interface CardUpdatedData {
  paymentIdentifier: string;
  status: string;
  previousStatus: string | null;
  reason?: string;
}

/** Suggested `data` of userUpdated: which parts changed, never their values. */
export interface UserUpdatedData {
  userIdentifier: string;
  changed: string[];
}
