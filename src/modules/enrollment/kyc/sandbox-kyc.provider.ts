import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { KycOutcome, KycProvider, KycSubject } from './kyc-provider';

/**
 * The sandbox vendor: last name `Kycrefer` refers KYC, `Ofachold` is a potential OFAC match,
 * everyone else passes. The triggers are test controls, so production mode ignores them; a real
 * vendor adapter replaces this class behind KYC_PROVIDER.
 */
@Injectable()
export class SandboxKycProvider implements KycProvider {
  readonly local = true;

  constructor(private readonly config: AppConfig) {}

  async screen(subject: KycSubject): Promise<KycOutcome> {
    if (!this.config.isSandbox) return 'pass';
    const lastName = subject.user.lastName.toLowerCase();
    if (lastName === 'kycrefer') return 'refer';
    if (lastName === 'ofachold') return 'ofacHold';
    return 'pass';
  }
}
