import { Injectable } from '@nestjs/common';
import type { PartnerConfig } from '../../config/service-config';
import { JweService } from './jwe.service';

/**
 * The one place that decides how encrypted data leaves the service (CONTRACT.md section 5):
 * a JWE compact string (ECDH-ES/A256GCM) to the partner's key, or nothing at all. Here, beside the
 * ciphers, because both the user module's user view and the account views seal with it.
 */
@Injectable()
export class PartnerViewService {
  constructor(private readonly jwe: JweService) {}

  receivesEncryptedData(partner: PartnerConfig): boolean {
    return partner.encryption !== null;
  }

  /**
   * `{ [property]: JWE }` for an encryption partner, `{}` for anyone else (the property is omitted
   * entirely). `plaintext` is only built when needed, so other partners never cause a decryption.
   */
  async seal(partner: PartnerConfig, property: string, plaintext: () => Promise<unknown> | unknown): Promise<Record<string, string>> {
    if (!partner.encryption) return {};
    return { [property]: await this.jwe.encryptForPartner(await plaintext(), partner.encryption.publicKeyJwk) };
  }
}
