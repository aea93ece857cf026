import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { KeyStore } from './key-store';

/**
 * Field-level encryption at rest: AES-256-GCM, a fresh 96-bit IV per value, the key id stored
 * with each value (`v1.<kid>.<iv>.<ciphertext+tag>`) so keys can rotate. The optional context is
 * bound as additional authenticated data, so a value copied into another column fails to decrypt.
 */
@Injectable()
export class FieldCipher {
  constructor(private readonly keys: KeyStore) {}

  encrypt(plaintext: string, context = ''): string {
    const kid = this.keys.material.currentDataKeyId;
    const key = this.keys.dataKeys.get(kid) as Buffer;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `v1.${kid}.${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  decrypt(value: string, context = ''): string {
    const [version, kid, ivText, bodyText] = value.split('.');
    const key = this.keys.dataKeys.get(kid ?? '');
    if (version !== 'v1' || !key || !ivText || !bodyText) throw new Error('Unreadable encrypted value');
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  }

  encryptJson(value: unknown, context = ''): string {
    return this.encrypt(JSON.stringify(value), context);
  }

  decryptJson<T>(value: string, context = ''): T {
    return JSON.parse(this.decrypt(value, context)) as T;
  }

  encryptNullable(value: string | null | undefined, context = ''): string | null {
    return value === null || value === undefined ? null : this.encrypt(value, context);
  }

  decryptNullable(value: string | null | undefined, context = ''): string | null {
    return value === null || value === undefined ? null : this.decrypt(value, context);
  }
}

/** Keyed blind index (HMAC-SHA256) for equality look-ups on encrypted values; never plaintext. */
@Injectable()
export class BlindIndex {
  constructor(private readonly keys: KeyStore) {}

  of(kind: 'ssn' | 'itin' | 'phone' | 'matricula' | 'taxId', value: string): string {
    const normalized = value.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    return createHmac('sha256', this.keys.blindIndexKey).update(`${kind}:${normalized}`).digest('base64url');
  }
}
