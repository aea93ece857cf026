import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { Injectable } from '@nestjs/common';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

interface ScryptPhc {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** Parses `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt b64>$<hash b64>`; undefined when malformed. */
function parsePhc(phc: string): ScryptPhc | undefined {
  const parts = phc.split('$');
  if (parts.length !== 5 || parts[1] !== 'scrypt') return undefined;
  const params = Object.fromEntries(parts[2].split(',').map((kv) => kv.split('=') as [string, string]));
  const ln = Number(params.ln);
  const r = Number(params.r ?? 8);
  const p = Number(params.p ?? 1);
  if (!Number.isInteger(ln) || ln < 1 || ln > 20) return undefined;
  return { ln, r, p, salt: Buffer.from(parts[3], 'base64'), hash: Buffer.from(parts[4], 'base64') };
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
