import { DynamicModule, Global, Module } from '@nestjs/common';
import { BODY_DECRYPTER } from '../../common/validation/valid-body';
import { BlindIndex, FieldCipher } from './field-cipher';
import { JweService } from './jwe.service';
import { KeyStore } from './key-store';
import { PartnerViewService } from './partner-view.service';
import { PayloadFingerprint } from './payload-fingerprint';

const PROVIDERS = [FieldCipher, BlindIndex, JweService, PayloadFingerprint, PartnerViewService, { provide: BODY_DECRYPTER, useExisting: JweService }];

/**
 * The keys are loaded before the application is built (`createApp`: `KeyStore.load`), so that a
 * bad SERVICE_KEYS is refused in the start's one line, before Nest or the database; the module
 * serves that store.
 */
@Global()
@Module({})
export class CryptoModule {
  /** `keys` null only for Nest's preview mode (the OpenAPI export), which instantiates no provider. */
  static forRoot(keys: KeyStore | null): DynamicModule {
    return {
      module: CryptoModule,
      providers: [{ provide: KeyStore, useValue: keys }, ...PROVIDERS],
      exports: [KeyStore, FieldCipher, BlindIndex, JweService, PayloadFingerprint, PartnerViewService, BODY_DECRYPTER],
    };
  }
}
