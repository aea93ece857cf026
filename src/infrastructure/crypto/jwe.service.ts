import { Injectable } from '@nestjs/common';
import { compactDecrypt, CompactEncrypt, decodeProtectedHeader, importJWK, JWK, CryptoKey } from 'jose';
import { KeyStore } from './key-store';

const ALG = 'ECDH-ES';
const ENC = 'A256GCM';

/** JWE compact serialisation (ECDH-ES + A256GCM on P-256), in both directions. */
@Injectable()
export class JweService {
  private readonly partnerKeys = new Map<string, Promise<CryptoKey>>();

  constructor(private readonly keys: KeyStore) {}

  /**
   * Decrypts a partner's `encryptedUserData` sent to the service's `enc` key, or to a previous one
   * still listed in SERVICE_KEYS (CONTRACT section 12): the key the header's `kid` names, else each
   * in turn, newest first. Throws on anything else.
   */
  async decryptFromPartner(compact: string): Promise<unknown> {
    let lastError: unknown = new Error('No key opened the JWE');
    for (const key of this.candidateKeys(compact)) {
      try {
        const { plaintext, protectedHeader } = await compactDecrypt(compact, key, {
          keyManagementAlgorithms: [ALG],
          contentEncryptionAlgorithms: [ENC],
          // No "zip": the JWE profile of CONTRACT section 5 has none, and a compressed plaintext
          // would carry many times the 64 KiB a body may have.
          maxDecompressedLength: 0,
        });
        if (protectedHeader.alg !== ALG || protectedHeader.enc !== ENC) throw new Error('Unsupported JWE algorithm');
        return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext)) as unknown;
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  private candidateKeys(compact: string): CryptoKey[] {
    const all = [{ kid: this.keys.material.encryption.kid, key: this.keys.encryptionPrivateKey }, ...this.keys.previousEncryptionKeys];
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(compact).kid;
    } catch {
      return [this.keys.encryptionPrivateKey];
    }
    const named = all.find((entry) => kid !== undefined && entry.kid === kid);
    return named ? [named.key] : all.map((entry) => entry.key);
  }

  /** An answer sealed to the partner's key (CONTRACT section 5), its `kid` in the header when the key has one. */
  async encryptForPartner(value: unknown, publicKeyJwk: Record<string, unknown>): Promise<string> {
    const cacheKey = `${String(publicKeyJwk.x)}.${String(publicKeyJwk.y)}`;
    let key = this.partnerKeys.get(cacheKey);
    if (!key) {
      key = importJWK(publicKeyJwk as unknown as JWK, ALG) as Promise<CryptoKey>;
      this.partnerKeys.set(cacheKey, key);
    }
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(value)))
      .setProtectedHeader({ alg: ALG, enc: ENC, cty: 'application/json', ...(typeof publicKeyJwk.kid === 'string' ? { kid: publicKeyJwk.kid } : {}) })
      .encrypt(await key);
  }
}
