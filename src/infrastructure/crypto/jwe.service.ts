import { Injectable } from '@nestjs/common';
import { compactDecrypt, CompactEncrypt, importJWK, JWK, KeyLike } from 'jose';
import { KeyStore } from './key-store';

const ALG = 'ECDH-ES';
const ENC = 'A256GCM';

/** JWE compact serialisation (ECDH-ES + A256GCM on P-256), in both directions. */
@Injectable()
export class JweService {
  private readonly partnerKeys = new Map<string, Promise<KeyLike>>();

  constructor(private readonly keys: KeyStore) {}

  /** Decrypts a partner's `encryptedUserData` sent to the service's `enc` key. Throws on anything else. */
  async decryptFromPartner(compact: string): Promise<unknown> {
    const { plaintext, protectedHeader } = await compactDecrypt(compact, this.keys.encryptionPrivateKey, {
      keyManagementAlgorithms: [ALG],
      contentEncryptionAlgorithms: [ENC],
    });
    if (protectedHeader.alg !== ALG || protectedHeader.enc !== ENC) throw new Error('Unsupported JWE algorithm');
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext)) as unknown;
  }

  async encryptForPartner(value: unknown, publicKeyJwk: Record<string, unknown>): Promise<string> {
    const cacheKey = `${String(publicKeyJwk.x)}.${String(publicKeyJwk.y)}`;
    let key = this.partnerKeys.get(cacheKey);
    if (!key) {
      key = importJWK(publicKeyJwk as unknown as JWK, ALG) as Promise<KeyLike>;
      this.partnerKeys.set(cacheKey, key);
    }
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(value)))
      .setProtectedHeader({ alg: ALG, enc: ENC, cty: 'application/json' })
      .encrypt(await key);
  }
}
