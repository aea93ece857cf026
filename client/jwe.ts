import { compactDecrypt, CompactEncrypt, importJWK, type JWK, type CryptoKey } from 'jose';

/**
 * JWE helpers for partners configured for encryption: `encryptedUserData` is
 * sent as a JWE compact string (ECDH-ES, A256GCM, P-256) to the service's `enc` key, and
 * `user.encryptedUserData` / `account.encryptedAccountData` come back encrypted to the partner's key.
 */
export async function serviceEncryptionKey(baseUrl: string, fetchImpl: typeof fetch = fetch): Promise<CryptoKey> {
  const jwks = (await (await fetchImpl(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: Array<JWK & { use?: string }> };
  const key = jwks.keys.find((k) => k.use === 'enc');
  if (!key) throw new Error('the service publishes no enc key');
  return (await importJWK(key, 'ECDH-ES')) as CryptoKey;
}

/** `encryptedUserData` as the service expects it from an encryption partner. */
export async function encryptUserData(data: unknown, serviceKey: CryptoKey): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data))).setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM' }).encrypt(serviceKey);
}

/** The JSON inside a JWE the service encrypted to the partner's key (private JWK or imported key). */
export async function decryptData<T = Record<string, unknown>>(jwe: string, partnerPrivateKey: JWK | CryptoKey): Promise<T> {
  const key = 'kty' in partnerPrivateKey ? ((await importJWK(partnerPrivateKey as JWK, 'ECDH-ES')) as CryptoKey) : partnerPrivateKey;
  const { plaintext } = await compactDecrypt(jwe, key);
  return JSON.parse(new TextDecoder().decode(plaintext)) as T;
}
