import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHmac, createSecretKey, hkdfSync, KeyObject, randomBytes, webcrypto } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, JWK, CryptoKey } from 'jose';
import { AppConfig } from '../../config/app-config';

/** A previous signing key, with when it stopped signing (Unix seconds; `keys:rotate` records it). */
export type RetiredSigningJwk = JWK & { retiredAt?: number };

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
  /**
   * Keys being rotated out (CONTRACT section 12), newest first. Signing keys (public or private
   * JWKs) are published and verify only tokens issued before their `retiredAt`, for
   * TOKEN_TTL_SECONDS after it (CONTRACT section 3; without `retiredAt`, from when the service
   * started); `enc` keys (private JWKs) are
   * published and still open partner JWEs; blind-index keys only match stored idempotency
   * fingerprints and are the source of `npm run keys:reindex`.
   */
  previousSigning?: RetiredSigningJwk[];
  previousEncryption?: JWK[];
  previousBlindIndexKeys?: string[];
  /**
   * A rotation staged for several instances (`keys:rotate -- --stage`): the kids of its fresh
   * signing and `enc` keys and the id of its data key, listed beside the current ones (the signing
   * key among `previousSigning` with a `retiredAt` ahead, so its tokens verify) and accepted by every
   * instance, used by none until `keys:rotate -- --promote` makes them current.
   */
  staged?: { signing: string; encryption: string; dataKey: string };
}

export class KeyStoreError extends Error {}

/**
 * Holds the loaded keys. Only `infrastructure/crypto` touches key material. Symmetric keys are held
 * as KeyObjects, imported once: on Node 24 an HMAC or AES-GCM context made from a raw Buffer key
 * costs more per call than one made from a KeyObject (docs/design-notes.md, "Node 24 and KeyObjects").
 */
export class KeyStore {
  /** The encoded JWS header of each token type signed so far (a handful: access tokens, care sessions). */
  private readonly jwsHeaders = new Map<string, string>();

  private constructor(
    readonly material: KeyMaterial,
    /** The current signing key as a WebCrypto key: WebCrypto signs on libuv's pool, off the event loop. */
    private readonly signingKey: webcrypto.CryptoKey,
    readonly encryptionPrivateKey: CryptoKey,
    readonly dataKeys: ReadonlyMap<string, KeyObject>,
    readonly blindIndexKey: KeyObject,
    /** The previous `enc` keys, by kid, tried after the current one. */
    readonly previousEncryptionKeys: ReadonlyArray<{ kid: string | undefined; key: CryptoKey }>,
    readonly previousBlindIndexKeys: readonly KeyObject[],
    /** Unix seconds at which the store was loaded: the retirement of a previous signing key that records none. */
    private readonly loadedAt: number,
  ) {}

  static load(config: AppConfig): Promise<KeyStore> {
    return KeyStore.from(config.env.serviceKeys, config.isSandbox, config.env.dataDir);
  }

  /** SERVICE_KEYS when set; else, in sandbox only, the keys of `<dataDir>/keys.json` (created once). */
  static async from(serviceKeys: string | undefined, sandbox: boolean, dataDir: string): Promise<KeyStore> {
    const material = serviceKeys ? parseMaterial(serviceKeys, 'SERVICE_KEYS') : sandbox ? await loadOrCreateSandboxKeys(dataDir) : undefined;
    if (!material) {
      throw new KeyStoreError('APP_MODE=production requires SERVICE_KEYS (JSON key material); refusing to start');
    }
    const dataKeys = new Map<string, KeyObject>();
    for (const [kid, b64] of Object.entries(material.dataKeys)) {
      const key = Buffer.from(b64, 'base64');
      if (key.length !== 32) throw new KeyStoreError(`data key ${kid} must be 32 bytes`);
      dataKeys.set(kid, createSecretKey(key));
    }
    if (!dataKeys.has(material.currentDataKeyId)) throw new KeyStoreError('currentDataKeyId names no data key');
    const blindIndexKey = blindKey(material.blindIndexKey, 'blindIndexKey');
    const previousBlindIndexKeys = (material.previousBlindIndexKeys ?? []).map((key, i) => blindKey(key, `previousBlindIndexKeys[${i}]`));
    const signingKey = await webcrypto.subtle.importKey('jwk', material.signing as webcrypto.JsonWebKey, ES256_KEY, false, ['sign']).catch(() => {
      throw new KeyStoreError('signing is not a private ES256 (P-256) JWK');
    });
    const encryptionPrivateKey = (await importJWK(material.encryption, 'ECDH-ES')) as CryptoKey;
    for (const [i, jwk] of (material.previousSigning ?? []).entries()) {
      if (!jwk.kid || jwk.kid === material.signing.kid) throw new KeyStoreError(`previousSigning[${i}] needs a kid of its own`);
      await importJWK(publicHalf(jwk), 'ES256').catch(() => {
        throw new KeyStoreError(`previousSigning[${i}] is not an ES256 JWK`);
      });
      if (jwk.retiredAt !== undefined && !Number.isInteger(jwk.retiredAt)) throw new KeyStoreError(`previousSigning[${i}].retiredAt must be Unix seconds`);
    }
    const previousEncryptionKeys = await Promise.all(
      (material.previousEncryption ?? []).map(async (jwk, i) => {
        if (!jwk.d || !jwk.kid || jwk.kid === material.encryption.kid)
          throw new KeyStoreError(`previousEncryption[${i}] must be a private JWK with a kid of its own`);
        const key = (await importJWK(jwk, 'ECDH-ES').catch(() => {
          throw new KeyStoreError(`previousEncryption[${i}] is not a P-256 ECDH-ES JWK`);
        })) as CryptoKey;
        return { kid: jwk.kid, key };
      }),
    );
    const staged = material.staged;
    if (
      staged &&
      !(
        (material.previousSigning ?? []).some((jwk) => jwk.kid === staged.signing) &&
        (material.previousEncryption ?? []).some((jwk) => jwk.kid === staged.encryption) &&
        dataKeys.has(staged.dataKey)
      )
    ) {
      throw new KeyStoreError('staged names a key the document does not list');
    }
    const loadedAt = Math.floor(Date.now() / 1000);
    return new KeyStore(material, signingKey, encryptionPrivateKey, dataKeys, blindIndexKey, previousEncryptionKeys, previousBlindIndexKeys, loadedAt);
  }

  /**
   * The id of the blind-index key, derived from the key itself (so key documents need no new
   * field): the database records the id its `_bidx` columns were computed under.
   */
  get blindIndexKeyId(): string {
    return blindIndexKeyIdOf(this.blindIndexKey);
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

  /**
   * When the signing key `kid` was retired (Unix seconds): its `retiredAt`, or the store's load time
   * for a previous key recording none; undefined for the current key (and for a kid not listed,
   * which verifies nothing anyway).
   */
  signingKeyRetiredAt(kid: string | undefined): number | undefined {
    const previous = (this.material.previousSigning ?? []).find((jwk) => jwk.kid === kid);
    return previous ? (previous.retiredAt ?? this.loadedAt) : undefined;
  }

  /**
   * A compact JWS (RFC 7515) of `claims`, ES256 (RFC 7518 §3.4: P-256, SHA-256, r‖s) under the
   * current signing key, header `{ alg, typ, kid }` (built once per typ). Signed by WebCrypto,
   * which runs the signature on libuv's pool and answers r‖s as JWS wants it: the signature, the
   * largest piece of a token's work, leaves the request thread, whose time is what bounds a token's
   * throughput (docs/design-notes.md, "Tokens signed off the event loop"). Not jose's SignJWT,
   * which re-checks the key and copies buffers around the one signature; jose still verifies every
   * token (TokenService.verify).
   */
  async signJwt(typ: string, claims: object): Promise<string> {
    let header = this.jwsHeaders.get(typ);
    if (!header) {
      header = Buffer.from(JSON.stringify({ alg: 'ES256', typ, kid: this.signingKeyId })).toString('base64url');
      this.jwsHeaders.set(typ, header);
    }
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = await webcrypto.subtle.sign(ES256_SIGN, this.signingKey, Buffer.from(input));
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  }

  /**
   * The public half of every signing and encryption key, for `/.well-known/jwks.json`: the current
   * ones first (the newest signs and is the one to encrypt to), then the previous ones, which still
   * verify tokens and open JWEs made before the rotation.
   */
  publicJwks(): { keys: JWK[] } {
    const pub = (jwk: JWK, use: string, alg: string): JWK => ({ ...publicHalf(jwk), use, alg });
    const { signing, encryption, previousSigning = [], previousEncryption = [] } = this.material;
    return {
      keys: [
        pub(signing, 'sig', 'ES256'),
        pub(encryption, 'enc', 'ECDH-ES'),
        ...previousSigning.map((jwk) => pub(jwk, 'sig', 'ES256')),
        ...previousEncryption.map((jwk) => pub(jwk, 'enc', 'ECDH-ES')),
      ],
    };
  }
}

const ES256_KEY: webcrypto.EcKeyImportParams = { name: 'ECDSA', namedCurve: 'P-256' };
const ES256_SIGN: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

function publicHalf(jwk: JWK): JWK {
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: jwk.kid };
}

function blindKey(b64: string, name: string): KeyObject {
  const key = Buffer.from(b64, 'base64');
  if (key.length < 32) throw new KeyStoreError(`${name} must be at least 32 bytes`);
  return createSecretKey(key);
}

export function blindIndexKeyIdOf(key: KeyObject): string {
  return `bik-${createHmac('sha256', key).update('blind-index-key-id').digest('hex').slice(0, 16)}`;
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

/**
 * The next key document of a rotation (`npm run --silent keys:rotate`): fresh signing and `enc`
 * keys with the current ones kept as previous, whole (`SERVICE_KEYS` keeps its shape, the private
 * `d` included: CONTRACT section 3), the signing key with its retirement time. Older previous
 * signing keys stay while their tokens may still verify (retired less than `tokenTtlSeconds` ago,
 * default 3600: two rotations within a token's lifetime lose none of them); older ones, and those
 * without a recorded retirement, are dropped, as is an older `enc` key. A fresh data key is made
 * current beside every old one (old values stay readable), and, when asked, a fresh blind-index key
 * with the current one kept as previous (the data must then be re-indexed: `npm run keys:reindex`).
 */
export async function rotateKeyMaterial(current: KeyMaterial, options: { blindIndex?: boolean; tokenTtlSeconds?: number } = {}): Promise<KeyMaterial> {
  if (current.staged) throw new KeyStoreError('a rotation is staged: promote it (keys:rotate -- --promote) before rotating again');
  // Both steps of a staged rotation at once, the old signing key retired now (one instance, or all at once).
  const next = promoteStagedRotation(await stageRotation(current), { rolloutSeconds: 0, tokenTtlSeconds: options.tokenTtlSeconds });
  if (!options.blindIndex) return next;
  return { ...next, blindIndexKey: randomBytes(32).toString('base64'), previousBlindIndexKeys: [current.blindIndexKey] };
}

/** How long a staged signing key verifies tokens before its promotion (its `retiredAt` ahead): a rollout is shorter. */
export const STAGED_KEYS_ACCEPTED_SECONDS = 30 * 24 * 3600;

/**
 * Step 1 of a rotation across several instances (`keys:rotate -- --stage`): fresh signing, `enc` and
 * data keys listed beside the current ones, which stay current. Deployed to every instance first,
 * it lets each accept what the fresh keys will make: tokens they sign (the signing key among
 * `previousSigning`, its `retiredAt` ahead by STAGED_KEYS_ACCEPTED_SECONDS), JWEs sealed to the
 * fresh `enc` key (among `previousEncryption`), values written under the fresh data key.
 */
export async function stageRotation(current: KeyMaterial): Promise<KeyMaterial> {
  if (current.staged) throw new KeyStoreError('a rotation is already staged: promote it first (keys:rotate -- --promote)');
  const fresh = await generateKeyMaterial();
  const now = Math.floor(Date.now() / 1000);
  return {
    ...current,
    dataKeys: { ...current.dataKeys, ...fresh.dataKeys },
    previousSigning: [{ ...fresh.signing, retiredAt: now + STAGED_KEYS_ACCEPTED_SECONDS }, ...(current.previousSigning ?? [])],
    previousEncryption: [fresh.encryption, ...(current.previousEncryption ?? [])],
    staged: { signing: String(fresh.signing.kid), encryption: String(fresh.encryption.kid), dataKey: fresh.currentDataKeyId },
  };
}

/**
 * Step 2 (`keys:rotate -- --promote`), once every instance runs step 1's document: the staged keys
 * become current and the current ones previous, as a one-step rotation would leave them, except
 * that the old signing key is retired `rolloutSeconds` from now (default 900): instances not yet
 * given this document keep signing with it meanwhile, and their tokens must verify everywhere.
 */
export function promoteStagedRotation(current: KeyMaterial, options: { rolloutSeconds?: number; tokenTtlSeconds?: number } = {}): KeyMaterial {
  const staged = current.staged;
  if (!staged) throw new KeyStoreError('no rotation is staged: run keys:rotate -- --stage first');
  const signing = (current.previousSigning ?? []).find((jwk) => jwk.kid === staged.signing);
  const encryption = (current.previousEncryption ?? []).find((jwk) => jwk.kid === staged.encryption);
  if (!signing || !encryption || !current.dataKeys[staged.dataKey]) throw new KeyStoreError('the staged keys are not all in the document');
  const now = Math.floor(Date.now() / 1000);
  const ttl = options.tokenTtlSeconds ?? 3600;
  const { retiredAt: _ahead, ...newSigning } = signing;
  const stillVerifying = (current.previousSigning ?? []).filter(
    (jwk) => jwk.kid !== staged.signing && jwk.retiredAt !== undefined && now < jwk.retiredAt + ttl,
  );
  return {
    signing: newSigning,
    encryption,
    dataKeys: current.dataKeys,
    currentDataKeyId: staged.dataKey,
    blindIndexKey: current.blindIndexKey,
    previousSigning: [{ ...current.signing, retiredAt: now + (options.rolloutSeconds ?? 900) }, ...stillVerifying],
    previousEncryption: [current.encryption],
    previousBlindIndexKeys: current.previousBlindIndexKeys ?? [],
  };
}

/**
 * The key document without the previous signing or `enc` key `kid` (`keys:rotate --revoke <kid>`):
 * once deployed, that key leaves the JWKS and its tokens are refused. The current keys cannot be
 * revoked this way, nor the keys a staged rotation will make current: rotate (or promote) first, then
 * revoke the key that became previous.
 */
export function revokeKey(current: KeyMaterial, kid: string): KeyMaterial {
  if (kid === current.signing.kid || kid === current.encryption.kid) {
    throw new KeyStoreError(`${kid} is a current key: run keys:rotate first, then revoke it`);
  }
  if (kid === current.staged?.signing || kid === current.staged?.encryption) {
    throw new KeyStoreError(`${kid} is staged to become current: promote it (keys:rotate -- --promote) and rotate before revoking it`);
  }
  const previousSigning = (current.previousSigning ?? []).filter((jwk) => jwk.kid !== kid);
  const previousEncryption = (current.previousEncryption ?? []).filter((jwk) => jwk.kid !== kid);
  if (previousSigning.length === (current.previousSigning ?? []).length && previousEncryption.length === (current.previousEncryption ?? []).length) {
    throw new KeyStoreError(`no previous signing or enc key has kid ${kid}`);
  }
  return { ...current, previousSigning, previousEncryption };
}

export function parseKeyMaterial(text: string, where: string): KeyMaterial {
  return parseMaterial(text, where);
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
