import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { PartnerConfig } from '../../config/service-config';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** Constant-time comparison of equal-length digests, whatever the secrets' lengths. */
function digestEquals(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Verifies a scrypt PHC string: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt b64>$<hash b64>`. */
async function verifyScrypt(secret: string, phc: string): Promise<boolean> {
  const parts = phc.split('$');
  if (parts.length !== 5 || parts[1] !== 'scrypt') return false;
  const params = Object.fromEntries(parts[2].split(',').map((kv) => kv.split('=') as [string, string]));
  const ln = Number(params.ln);
  const r = Number(params.r ?? 8);
  const p = Number(params.p ?? 1);
  if (!Number.isInteger(ln) || ln < 1 || ln > 20) return false;
  const salt = Buffer.from(parts[3], 'base64');
  const expected = Buffer.from(parts[4], 'base64');
  const actual = await scryptAsync(secret, salt, expected.length, { N: 2 ** ln, r, p, maxmem: 256 * 1024 * 1024 });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export async function verifyClientSecret(partner: PartnerConfig, secret: string): Promise<boolean> {
  if (partner.clientSecretHash) return verifyScrypt(secret, partner.clientSecretHash);
  return partner.clientSecret !== undefined && digestEquals(secret, partner.clientSecret);
}
