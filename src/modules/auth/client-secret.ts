import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { Injectable } from '@nestjs/common';
import { formatScryptPhc, parseScryptPhc, ScryptPhc, scryptOptions } from '../../config/scrypt-phc';

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
    const actual = await scryptAsync(secret, parsed.salt, parsed.hash.length, scryptOptions(parsed));
    return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
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
    return formatScryptPhc({ ...parsed, salt: randomBytes(parsed.salt.length), hash: randomBytes(parsed.hash.length) });
  }
}
