import type { UserDataPlain } from '../../user/user.types';

/** Outcome of KYC and OFAC screening (CONTRACT.md section 10 names the sandbox triggers). */
import type { KycOutcome } from '../../lifecycle/account-lifecycle';

export type { KycOutcome };

export interface KycSubject {
  programCode: string;
  accountType: 'consumer' | 'business';
  user: UserDataPlain;
  /**
   * Care cleared an OFAC hold of this enrollment: the screening that held it is not run again, but
   * KYC is decided (a hold answers before KYC, and clearing it passes nothing: CONTRACT section 12).
   */
  ofacCleared?: boolean;
}

/** The SDN entry an OFAC screening matched, as the care audit trail records it (never the listed name). */
export interface OfacHit {
  sdnEntNum: number;
  score: number;
  matchKind: 'primary' | 'alias';
}

export interface KycDecision {
  outcome: KycOutcome;
  /** Set when the hold comes from the SDN list screening. */
  ofacHit?: OfacHit;
}

/** Port to the KYC/OFAC vendor; called outside any transaction (a real vendor is an HTTP call). */
export interface KycProvider {
  /**
   * True when `screen` decides in memory (no network call): a new enrollment is then decided before
   * its rows are written, in one transaction. A remote vendor is called between transactions.
   */
  readonly local: boolean;
  screen(subject: KycSubject): Promise<KycDecision>;
}

export const KYC_PROVIDER = Symbol('KYC_PROVIDER');
