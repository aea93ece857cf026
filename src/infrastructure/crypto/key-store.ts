import * as fs from 'node:fs';
import * as path from 'node:path';
import { hkdfSync, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, JWK, KeyLike } from 'jose';
import { AppConfig } from '../../config/app-config';

/** Serialised key material: what `SERVICE_KEYS` (production) or `<DATA_DIR>/keys.json` (sandbox) holds. */
export interface KeyMaterial {
  /** ES256 private JWK (with kid) signing access tokens. */
  signing: JWK;
  /** P-256 private JWK (with kid) partners encrypt `encryptedUserData` to (ECDH-ES + A256GCM). */
  encryption: JWK;
  /** AES-256 data keys by key id (base64); values name their kid so old keys keep decrypting. */
  dataKeys: Record<string, string>;
  currentDataKeyId: string;
  /** HMAC-SHA256 key (base64) for blind indexes. */
  blindIndexKey: string;
}

export class KeyStoreError extends Error {}

/** Holds the loaded keys. Only `infrastructure/crypto` touches key material. */
export class KeyStore {
  private constructor(
    readonly material: KeyMaterial,
    readonly signingKey: KeyLike,
    readonly encryptionPrivateKey: KeyLike,
    readonly dataKeys: ReadonlyMap<string, Buffer>,
    readonly blindIndexKey: Buffer,
  ) {}

  static async load(config: AppConfig): Promise<KeyStore> {
    const material = config.env.serviceKeys
      ? parseMaterial(config.env.serviceKeys, 'SERVICE_KEYS')
      : config.isSandbox
        ? await loadOrCreateSandboxKeys(config.env.dataDir)
        : undefined;
    if (!material) {
      throw new KeyStoreError('APP_MODE=production requires SERVICE_KEYS (JSON key material); refusing to start');
    }
    const dataKeys = new Map(Object.entries(material.dataKeys).map(([kid, b64]) => [kid, Buffer.from(b64, 'base64')]));
    for (const [kid, key] of dataKeys) {
      if (key.length !== 32) throw new KeyStoreError(`data key ${kid} must be 32 bytes`);
    }
    if (!dataKeys.has(material.currentDataKeyId)) throw new KeyStoreError('currentDataKeyId names no data key');
    const blindIndexKey = Buffer.from(material.blindIndexKey, 'base64');
    if (blindIndexKey.length < 32) throw new KeyStoreError('blindIndexKey must be at least 32 bytes');
    const signingKey = (await importJWK(material.signing, 'ES256')) as KeyLike;
    const encryptionPrivateKey = (await importJWK(material.encryption, 'ECDH-ES')) as KeyLike;
    return new KeyStore(material, signingKey, encryptionPrivateKey, dataKeys, blindIndexKey);
  }

  /**
   * A secret for one purpose (e.g. signing the care console's session cookie), derived with HKDF
   * from the blind-index key: the same on every instance sharing SERVICE_KEYS, separate from the
   * blind indexes, and never the key itself.
   */
  derivedSecret(purpose: string): string {
    return Buffer.from(hkdfSync('sha256', this.blindIndexKey, Buffer.alloc(0), `enrollment-service:${purpose}`, 32)).toString('base64url');
  }

  get signingKeyId(): string {
    return this.material.signing.kid as string;
  }

  /** The public half of the signing and encryption keys, for `/.well-known/jwks.json`. */
  publicJwks(): { keys: JWK[] } {
    const pub = (jwk: JWK, use: string, alg: string): JWK => ({
      kty: jwk.kty,
      crv: jwk.crv,
      x: jwk.x,
      y: jwk.y,
      kid: jwk.kid,
      use,
      alg,
    });
    return { keys: [pub(this.material.signing, 'sig', 'ES256'), pub(this.material.encryption, 'enc', 'ECDH-ES')] };
  }
}

function parseMaterial(text: string, where: string): KeyMaterial {
  let parsed: KeyMaterial;
  try {
    parsed = JSON.parse(text) as KeyMaterial;
  } catch {
    throw new KeyStoreError(`${where} is not valid JSON`);
  }
  for (const field of ['signing', 'encryption', 'dataKeys', 'currentDataKeyId', 'blindIndexKey'] as const) {
    if (!parsed[field]) throw new KeyStoreError(`${where} lacks ${field}`);
  }
  return parsed;
}

export async function generateKeyMaterial(): Promise<KeyMaterial> {
  const stamp = new Date().toISOString().slice(0, 10);
  const signing = await generateKeyPair('ES256', { extractable: true });
  const encryption = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
  const dataKeyId = `dk-${stamp}-${randomBytes(3).toString('hex')}`;
  return {
    signing: { ...(await exportJWK(signing.privateKey)), kid: `sig-${stamp}-${randomBytes(3).toString('hex')}` },
    encryption: { ...(await exportJWK(encryption.privateKey)), kid: `enc-${stamp}-${randomBytes(3).toString('hex')}` },
    dataKeys: { [dataKeyId]: randomBytes(32).toString('base64') },
    currentDataKeyId: dataKeyId,
    blindIndexKey: randomBytes(32).toString('base64'),
  };
}

/** Sandbox keys live in the data folder; several instances sharing it race to create them once. */
async function loadOrCreateSandboxKeys(dataDir: string): Promise<KeyMaterial> {
  const file = path.join(dataDir, 'keys.json');
  fs.mkdirSync(dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, JSON.stringify(await generateKeyMaterial(), null, 2), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file); // atomic: fails if another instance won the race
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  return parseMaterial(fs.readFileSync(file, 'utf8'), file);
}
