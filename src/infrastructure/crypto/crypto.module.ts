import { Global, Module } from '@nestjs/common';
import { BODY_DECRYPTER } from '../../common/validation/valid-body';
import { AppConfig } from '../../config/app-config';
import { BlindIndex, FieldCipher } from './field-cipher';
import { JweService } from './jwe.service';
import { KeyStore } from './key-store';

@Global()
@Module({
  providers: [
    { provide: KeyStore, inject: [AppConfig], useFactory: (config: AppConfig) => KeyStore.load(config) },
    FieldCipher,
    BlindIndex,
    JweService,
    { provide: BODY_DECRYPTER, useExisting: JweService },
  ],
  exports: [KeyStore, FieldCipher, BlindIndex, JweService, BODY_DECRYPTER],
})
export class CryptoModule {}
