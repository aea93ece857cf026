import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { OfacScreeningService } from '../../screening/ofac-screening.service';
import { KycOutcome, KycProvider, KycSubject } from './kyc-provider';

/**
 * The sandbox vendor: last name `Kycrefer` refers KYC, `Ofachold` is a potential OFAC match,
 * everyone else passes. The triggers are test controls, so production mode ignores them. When an
 * SDN list is configured (OFAC_LIST_DIR), the enrollee's name is screened against it too, in
 * memory, in every mode (CONTRACT section 12): a match holds the enrollment like `Ofachold`.
 * A real KYC vendor adapter replaces this class behind KYC_PROVIDER.
 */
@Injectable()
export class SandboxKycProvider implements KycProvider {
  readonly local = true;

  constructor(
    private readonly config: AppConfig,
    private readonly ofac: OfacScreeningService,
  ) {}

  async screen(subject: KycSubject): Promise<KycOutcome> {
    const { firstName, middleName, lastName } = subject.user;
    if (this.ofac.screen({ firstName, ...(middleName !== undefined ? { middleName } : {}), lastName })) return 'ofacHold';
    if (!this.config.isSandbox) return 'pass';
    const magic = lastName.toLowerCase();
    if (magic === 'kycrefer') return 'refer';
    if (magic === 'ofachold') return 'ofacHold';
    return 'pass';
  }
}
