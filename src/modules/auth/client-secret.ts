import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { Injectable } from '@nestjs/common';
import { parseScryptPhc, ScryptPhc } from '../../config/scrypt-phc';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** The PHC, or undefined when the configuration's reader refuses it (config refuses it at start). */
function parsePhc(phc: string): ScryptPhc | undefined {
  const parsed = parseScryptPhc(phc);
  return 'refused' in parsed ? undefined : parsed;
}

/** scrypt PHC verification, behind a class so the secret verifier's tests can count and pace it. */
@Injectable()
export class ScryptHasher {
  async matches(secret: string, phc: string): Promise<boolean> {
    const parsed = parsePhc(phc);
    if (!parsed) return false;
    const { ln, r, p, salt, hash } = parsed;
    const actual = await scryptAsync(secret, salt, hash.length, { N: 2 ** ln, r, p, maxmem: 256 * 1024 * 1024 });
    return actual.length === hash.length && timingSafeEqual(actual, hash);
  }

  /** scrypt's work for one verification of `phc` (N·r·p); 0 when malformed. */
  cost(phc: string): number {
    const parsed = parsePhc(phc);
    return parsed ? 2 ** parsed.ln * parsed.r * parsed.p : 0;
  }

  /** A PHC with the same cost, salt and hash lengths as `phc` but random bytes: no secret matches it. */
  dummyLike(phc: string): string | undefined {
    const parsed = parsePhc(phc);
    if (!parsed) return undefined;
    const { ln, r, p, salt, hash } = parsed;
    return `$scrypt$ln=${ln},r=${r},p=${p}$${randomBytes(salt.length).toString('base64')}$${randomBytes(hash.length).toString('base64')}`;
  }
}
