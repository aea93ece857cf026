// `npm run --silent keys:rotate [-- --blind-index]`: reads the current SERVICE_KEYS from the
// environment and prints the next key document (one line of JSON) to stdout: fresh signing, `enc`
// and data keys, the current ones kept as previous, the signing key with its retirement time
// (CONTRACT sections 3 and 12). With --blind-index the blind-index key is rotated too; run
// `npm run keys:reindex` before serving with it. `-- --revoke <kid>` prints the document without
// that previous key instead (nothing rotated).
import { loadEnv } from './config/env';
import { parseKeyMaterial, revokeKey, rotateKeyMaterial } from './infrastructure/crypto/key-store';

async function main(): Promise<void> {
  const current = process.env.SERVICE_KEYS;
  if (!current) throw new Error('SERVICE_KEYS (the key document in use) must be set');
  const material = parseKeyMaterial(current, 'SERVICE_KEYS');
  const revoke = process.argv.indexOf('--revoke');
  if (revoke >= 0 && !process.argv[revoke + 1]) throw new Error('--revoke needs the kid of a previous key');
  const next =
    revoke >= 0
      ? revokeKey(material, process.argv[revoke + 1])
      : await rotateKeyMaterial(material, {
          blindIndex: process.argv.includes('--blind-index'),
          // The service's token lifetime (as the service reads it), which bounds how long a previous signing key still verifies.
          tokenTtlSeconds: loadEnv().tokenTtlSeconds,
        });
  process.stdout.write(`${JSON.stringify(next)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`keys:rotate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
