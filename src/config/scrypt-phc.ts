/** A client secret hash as SERVICE_CONFIG holds it: `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt b64>$<hash b64>`. */
export interface ScryptPhc {
  ln: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** The least salt and hash a PHC may carry (bytes): a hash of a few bytes would match a guess in a few hundred. */
export const MIN_SALT_BYTES = 16;
export const MIN_HASH_BYTES = 32;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The one reader of a PHC string, for the configuration's checks and the token endpoint's
 * verification alike: the PHC, or why it is refused. scrypt is run for as many bytes as the stored
 * hash holds, so an empty hash would compare two empty buffers and admit any secret: the salt and the
 * hash must be base64 of at least MIN_SALT_BYTES and MIN_HASH_BYTES.
 */
export function parseScryptPhc(phc: string): ScryptPhc | { refused: string } {
  const parts = phc.split('$');
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== 'scrypt') return { refused: 'must be a scrypt PHC string ($scrypt$ln=..,r=..,p=..$salt$hash)' };
  const params = new Map(parts[2].split(',').map((kv) => kv.split('=') as [string, string]));
  const ln = Number(params.get('ln'));
  const r = Number(params.get('r') ?? 8);
  const p = Number(params.get('p') ?? 1);
  if (!Number.isInteger(ln) || ln < 1 || ln > 20 || !Number.isInteger(r) || r < 1 || !Number.isInteger(p) || p < 1) {
    return { refused: 'has scrypt parameters out of range (ln 1 to 20, r and p positive integers)' };
  }
  const [saltText, hashText] = [parts[3], parts[4]];
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return { refused: 'must carry its salt and hash in base64' };
  const salt = Buffer.from(saltText, 'base64');
  const hash = Buffer.from(hashText, 'base64');
  if (salt.length < MIN_SALT_BYTES || hash.length < MIN_HASH_BYTES) {
    return { refused: `needs a salt of at least ${MIN_SALT_BYTES} bytes and a hash of at least ${MIN_HASH_BYTES}` };
  }
  return { ln, r, p, salt, hash };
}

/** scrypt's options for a PHC's parameters, as the token endpoint verifies with them (memory for up to ln 20). */
export function scryptOptions({ ln, r, p }: Pick<ScryptPhc, 'ln' | 'r' | 'p'>): { N: number; r: number; p: number; maxmem: number } {
  return { N: 2 ** ln, r, p, maxmem: 256 * 1024 * 1024 };
}

/** The PHC string of `phc`: the one writer beside parseScryptPhc, its reader. */
export function formatScryptPhc({ ln, r, p, salt, hash }: ScryptPhc): string {
  return `$scrypt$ln=${ln},r=${r},p=${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}
