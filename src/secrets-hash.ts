// `npm run --silent secrets:hash < secret.txt`: the `clientSecretHash` of a partner's client secret
// for SERVICE_CONFIG (docs/operations.md, "Client secrets"): a scrypt PHC at the production cost,
// with a fresh 16-byte salt and a 32-byte hash. The secret is read from standard input (a trailing
// newline dropped), never from the command line, where it would stay in the shell's history.
import { randomBytes, scryptSync } from 'node:crypto';
import { formatScryptPhc, scryptOptions } from './config/scrypt-phc';
import { DEFAULT_SCRYPT } from './config/service-config';

/** The PHC string the service verifies `secret` against (ScryptHasher, auth/client-secret.ts). */
export function hashClientSecret(secret: string, salt: Buffer = randomBytes(16)): string {
  return formatScryptPhc({ ...DEFAULT_SCRYPT, salt, hash: scryptSync(secret, salt, 32, scryptOptions(DEFAULT_SCRYPT)) });
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const secret = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (secret === '') throw new Error('give the client secret on standard input');
  process.stdout.write(`${hashClientSecret(secret)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`secrets:hash failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
