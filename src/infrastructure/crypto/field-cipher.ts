import { createCipheriv, createDecipheriv, createHmac, KeyObject, randomFillSync } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { KeyStore } from './key-store';

/** GCM's full 128-bit tag, the only length written or accepted. */
const TAG_BYTES = 16;

/**
 * Field-level encryption at rest: AES-256-GCM, a fresh 96-bit IV per value, the key id stored
 * with each value so keys can rotate. The context is bound as additional authenticated data:
 * - `v2.<kid>.<iv>.<ciphertext+tag>` (given a row): the column context and the row's id, so a value
 *   copied into another column or swapped with another row's fails to decrypt;
 * - `v1.…` (no row): the context alone. Values written before rows were bound stay readable.
 */
@Injectable()
export class FieldCipher {
  constructor(private readonly keys: KeyStore) {}

  encrypt(plaintext: string, context = '', row?: string): string {
    const kid = this.keys.material.currentDataKeyId;
    const key = this.keys.dataKeys.get(kid) as KeyObject;
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(context, row));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${row === undefined ? 'v1' : 'v2'}.${kid}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** A `v2` value needs the row it was written for; a `v1` value is read with its context alone. */
  decrypt(value: string, context = '', row?: string): string {
    const [version, kid, ivText, bodyText] = value.split('.');
    const key = this.keys.dataKeys.get(kid ?? '');
    if ((version !== 'v1' && version !== 'v2') || !key || !ivText || !bodyText) throw new UnreadableCiphertextError();
    if (version === 'v2' && row === undefined) throw new UnreadableCiphertextError();
    const body = Buffer.from(bodyText, 'base64url');
    try {
      // The tag length pinned: a value shorter than a full tag must not verify against a truncated one.
      if (body.length < TAG_BYTES) throw new UnreadableCiphertextError();
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(context, version === 'v2' ? row : undefined));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new UnreadableCiphertextError();
    }
  }

  /** Whether a stored value is bound to its row (`v2`); `v1` values are re-encrypted by `npm run keys:reindex`. */
  static isRowBound(value: string): boolean {
    return value.startsWith('v2.');
  }

  encryptJson(value: unknown, context = '', row?: string): string {
    return this.encrypt(JSON.stringify(value), context, row);
  }

  decryptJson<T>(value: string, context = '', row?: string): T {
    return JSON.parse(this.decrypt(value, context, row)) as T;
  }

  encryptNullable(value: string | null | undefined, context = '', row?: string): string | null {
    return value === null || value === undefined ? null : this.encrypt(value, context, row);
  }

  decryptNullable(value: string | null | undefined, context = '', row?: string): string | null {
    return value === null || value === undefined ? null : this.decrypt(value, context, row);
  }
}

const IV_BYTES = 12;
const IV_POOL_BYTES = IV_BYTES * 512;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

/**
 * A fresh 96-bit IV from the CSPRNG, taken from a pool filled 512 IVs at a time (as Node's own
 * randomUUID keeps a cache of random bytes): a `randomBytes(12)` call per value costs far more than
 * a slice of the pool, and an enrollment encrypts a dozen values. Each IV is handed out once (the
 * offset only moves forward; the pool is replaced, never rewound); createCipheriv copies it.
 */
function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomFillSync(Buffer.allocUnsafe(IV_POOL_BYTES));
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

/**
 * A stored value that does not decrypt under its column and row: tampered with, swapped between
 * rows, or under a key no longer configured. It carries no part of the value; the exception filter
 * answers the generic 500 and logs its name only.
 */
export class UnreadableCiphertextError extends Error {
  constructor() {
    super('Unreadable encrypted value');
    this.name = 'UnreadableCiphertextError';
  }
}

function aad(context: string, row: string | undefined): Buffer {
  return Buffer.from(row === undefined ? context : `${context}\u0000${row}`, 'utf8');
}

export type BlindIndexKind = 'ssn' | 'itin' | 'phone' | 'matricula' | 'taxId';

/** Keyed blind index (HMAC-SHA256) for equality look-ups on encrypted values; never plaintext. */
@Injectable()
export class BlindIndex {
  constructor(private readonly keys: KeyStore) {}

  of(kind: BlindIndexKind, value: string): string {
    return BlindIndex.under(this.keys.blindIndexKey, kind, value);
  }

  /** The index of a value under a given key (the re-index computes old and new side by side). */
  static under(key: KeyObject, kind: BlindIndexKind, value: string): string {
    const normalized = value.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    return createHmac('sha256', key).update(`${kind}:${normalized}`).digest('base64url');
  }
}
