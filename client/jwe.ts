import { compactDecrypt, CompactEncrypt, importJWK, type JWK, type CryptoKey } from 'jose';

/**
 * JWE helpers for partners configured for encryption: `encryptedUserData` is
 * sent as a JWE compact string (ECDH-ES, A256GCM, P-256) to the service's `enc` key, and
 * `user.encryptedUserData` / `account.encryptedAccountData` come back encrypted to the partner's key.
 */
/** The service's current `enc` key (the first of its JWKS), with its `kid`. */
export interface ServiceEncryptionKey {
  key: CryptoKey;
  kid: string | undefined;
}

export async function serviceEncryptionKey(baseUrl: string, fetchImpl: typeof fetch = fetch): Promise<ServiceEncryptionKey> {
  const response = await fetchImpl(`${baseUrl}/.well-known/jwks.json`);
  if (!response.ok) throw new Error(`the service's JWKS answered ${response.status}`);
  const jwks = (await response.json()) as { keys: Array<JWK & { use?: string }> };
  const key = jwks.keys.find((k) => k.use === 'enc');
  if (!key) throw new Error('the service publishes no enc key');
  return { key: (await importJWK(key, 'ECDH-ES')) as CryptoKey, kid: key.kid };
}

/** `encryptedUserData` as the service expects it from an encryption partner, naming the key by its `kid` when known. */
export async function encryptUserData(data: unknown, serviceKey: CryptoKey | ServiceEncryptionKey): Promise<string> {
  const { key, kid } = 'key' in serviceKey ? serviceKey : { key: serviceKey, kid: undefined };
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', ...(kid ? { kid } : {}) })
    .encrypt(key);
}

/** The JSON inside a JWE the service encrypted to the partner's key (private JWK or imported key). */
export async function decryptData<T = Record<string, unknown>>(jwe: string, partnerPrivateKey: JWK | CryptoKey): Promise<T> {
  const key = 'kty' in partnerPrivateKey ? ((await importJWK(partnerPrivateKey as JWK, 'ECDH-ES')) as CryptoKey) : partnerPrivateKey;
  const { plaintext } = await compactDecrypt(jwe, key);
  return JSON.parse(new TextDecoder().decode(plaintext)) as T;
}
