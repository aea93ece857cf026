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
  screen(subject: KycSubject): Promise<KycOutcome>;
}

export const KYC_PROVIDER = Symbol('KYC_PROVIDER');
