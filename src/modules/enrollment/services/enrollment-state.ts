import type { Account } from '../../accounts/account.types';
import type { AuditEntry } from '../../audit/care-audit.service';
import { publishedState } from '../../lifecycle/account-lifecycle';
import type { OfacHit } from '../kyc/kyc-provider';

/** The care audit entry of a hold by the SDN list screening: which entry matched, and how closely. */
export const SCREENING_ACTOR = 'ofac-screening';

export function ofacHoldAudit(account: Account, before: Parameters<typeof publishedState>[0], hit: OfacHit): AuditEntry {
  return {
    accountId: account.id,
    actor: SCREENING_ACTOR,
    action: 'ofacHold',
    before: { ...publishedState(before), paymentInstruments: [] },
    after: { ...publishedState(account), paymentInstruments: [] },
    detail: { ...hit },
  };
}
