import { Global, Module } from '@nestjs/common';
import { BODY_DECRYPTER } from '../../common/validation/valid-body';
import { AppConfig } from '../../config/app-config';
import { BlindIndex, FieldCipher } from './field-cipher';
import { JweService } from './jwe.service';
import { KeyStore } from './key-store';
import { PartnerViewService } from './partner-view.service';
import { PayloadFingerprint } from './payload-fingerprint';

@Global()
@Module({
  providers: [
    { provide: KeyStore, inject: [AppConfig], useFactory: (config: AppConfig) => KeyStore.load(config) },
    FieldCipher,
    BlindIndex,
    JweService,
    PayloadFingerprint,
    PartnerViewService,
    { provide: BODY_DECRYPTER, useExisting: JweService },
  ],
  exports: [KeyStore, FieldCipher, BlindIndex, JweService, PayloadFingerprint, PartnerViewService, BODY_DECRYPTER],
})
export class CryptoModule {}
