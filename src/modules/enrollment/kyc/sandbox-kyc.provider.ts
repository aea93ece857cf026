import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { OfacScreeningService } from '../../screening/ofac-screening.service';
import { KycDecision, KycProvider, KycSubject } from './kyc-provider';

/**
 * The KYC/OFAC decision when no KYC vendor is configured. When an SDN list is configured
 * (OFAC_LIST_DIR; production requires one), the enrollee's name is screened against it in memory:
 * a match holds the enrollment (CONTRACT section 12). Then:
 * - sandbox: last name `Kycrefer` refers KYC, `Ofachold` is a potential OFAC match, everyone else passes;
 * - production: those test controls are ignored, and every enrollment of a `kycRequired` program is
 *   referred for manual review: production never passes KYC silently. A vendor adapter replaces
 *   this class behind KYC_PROVIDER.
 */
@Injectable()
export class SandboxKycProvider implements KycProvider {
  readonly local = true;

  constructor(
    private readonly config: AppConfig,
    private readonly ofac: OfacScreeningService,
  ) {}

  async screen(subject: KycSubject): Promise<KycDecision> {
    const { firstName, middleName, lastName } = subject.user;
    // After care's clearance the hold is lifted: the list is not screened again, KYC is still decided.
    const hit = subject.ofacCleared ? null : this.ofac.screen({ firstName, ...(middleName !== undefined ? { middleName } : {}), lastName });
    if (hit) return { outcome: 'ofacHold', ofacHit: { sdnEntNum: hit.entNum, score: hit.score, matchKind: hit.kind } };
    if (this.config.isProduction) return { outcome: this.config.service.programs.get(subject.programCode)?.kycRequired ? 'refer' : 'pass' };
    const magic = lastName.toLowerCase();
    if (magic === 'kycrefer') return { outcome: 'refer' };
    if (magic === 'ofachold' && !subject.ofacCleared) return { outcome: 'ofacHold' };
    return { outcome: 'pass' };
  }
}
