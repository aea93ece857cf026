import type { UserDataPlain } from '../../user/services/user-records.service';

/** Outcome of KYC and OFAC screening (CONTRACT.md section 10 names the sandbox triggers). */
export type KycOutcome = 'pass' | 'refer' | 'ofacHold';

export interface KycSubject {
  programCode: string;
  accountType: 'consumer' | 'business';
  user: UserDataPlain;
}

/** Port to the KYC/OFAC vendor; called outside any transaction (a real vendor is an HTTP call). */
export interface KycProvider {
  /**
   * True when `screen` decides in memory (no network call): a new enrollment is then decided before
   * its rows are written, in one transaction. A remote vendor is called between transactions.
   */
  readonly local: boolean;
  screen(subject: KycSubject): Promise<KycOutcome>;
}

export const KYC_PROVIDER = Symbol('KYC_PROVIDER');
