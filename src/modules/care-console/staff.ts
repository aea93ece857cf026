import type { StaffIdentity } from '../audit/care-audit.service';

/** A signed-in care staff member, as the session keeps them. */
export interface Staff extends StaffIdentity {
  name: string | null;
  /** Programs whose accounts the console shows this person. */
  programs: string[];
  /** The care client whose view of accounts the console shows (a care partner of SERVICE_CONFIG). */
  partnerId: string;
  via: 'oidc' | 'sandbox';
}

/** What the console keeps in the server-side session. */
export interface ConsoleSessionData {
  staff?: Staff;
  /** Epoch ms of the last request: the idle timeout is checked against it as well as the store's expiry. */
  lastSeen?: number;
  /** Epoch ms of the sign-in: the session ends CARE_SESSION_MAX_HOURS after it, however active. */
  signedInAt?: number;
  flash?: string;
}

export const SEARCH_KINDS = ['accountIdentifier', 'paymentIdentifier', 'ssn', 'phone'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Every care operation of CONTRACT section 8, as the console names it. */
export const OPERATIONS = {
  lock: { label: 'Lock account', effect: 'The account is locked (statusReason careLock) until it is unlocked.' },
  unlock: { label: 'Unlock account', effect: 'The status and statusReason from before the care lock come back.' },
  close: { label: 'Close account', effect: 'The account and every usable card are closed. This cannot be undone.' },
  fraudBlock: { label: 'Fraud block', effect: 'The account is locked (statusReason fraudBlock) and its active and inactive cards are blocked.' },
  removeFraudBlock: {
    label: 'Remove fraud block',
    effect: 'The account becomes healthy and normal at once; the blocked cards are unblocked by up to 3 automatic attempts within 15 minutes.',
  },
  ofacClear: {
    label: 'Clear OFAC hold',
    effect:
      'The held enrollment completes exactly as originally requested: bill cycle day, card, status normal. If its SSN, ITIN or phone reached its limit of active accounts meanwhile, it is declined instead and the account closed.',
  },
  kycGateClear: { label: 'Clear KYC gate', effect: 'kycPendingGate manual becomes none, the status normal, and inactive or blocked cards active.' },
  replaceCard: { label: 'Replace card', effect: 'A new card is issued with the current names; this card becomes replaced.' },
} as const;
export type OperationName = keyof typeof OPERATIONS;

export function isOperation(name: string): name is OperationName {
  return Object.prototype.hasOwnProperty.call(OPERATIONS, name);
}

/** What a reveal may show in full, as the console names it; the key is the audit entry's `detail.field`. */
export const REVEALABLE = { ssn: 'SSN', itin: 'ITIN', matricula: 'Matricula ID', dateOfBirth: 'date of birth', email: 'email' } as const;
export type RevealField = keyof typeof REVEALABLE;

/** What a reveal may show in full of a business profile, and the profile field each one is. */
export const BUSINESS_REVEALABLE = { businessEmail: 'business email', businessPhone: 'business phone number' } as const;
export type BusinessRevealField = keyof typeof BUSINESS_REVEALABLE;
export const BUSINESS_FIELD_OF = { businessEmail: 'email', businessPhone: 'phoneNumber' } as const satisfies Record<BusinessRevealField, string>;

declare module 'fastify' {
  // The console's fields of @fastify/session's request.session.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Session extends ConsoleSessionData {}
}
