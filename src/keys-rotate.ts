// `npm run --silent keys:rotate [-- --blind-index]`: reads the current SERVICE_KEYS from the
// environment and prints the next key document (one line of JSON) to stdout: fresh signing, `enc`
// and data keys, the current ones kept as previous, the signing key with its retirement time
// (CONTRACT sections 3 and 12). With --blind-index the blind-index key is rotated too; run
// `npm run keys:reindex` before serving with it. `-- --revoke <kid>` prints the document without
// that previous key instead (nothing rotated). With several instances, rotate in two steps, each
// deployed to every instance before the next (docs/operations.md): `-- --stage` lists fresh keys
// that every instance accepts and none uses yet; `-- --promote [--rollout-seconds N]` makes them
// current (the old signing key retired N seconds later, default 900: the rollout's length).
import { loadEnv } from './config/env';
import { parseKeyMaterial, promoteStagedRotation, revokeKey, rotateKeyMaterial, stageRotation } from './infrastructure/crypto/key-store';

async function main(): Promise<void> {
  const current = process.env.SERVICE_KEYS;
  if (!current) throw new Error('SERVICE_KEYS (the key document in use) must be set');
  const material = parseKeyMaterial(current, 'SERVICE_KEYS');
  const revoke = process.argv.indexOf('--revoke');
  if (revoke >= 0 && !process.argv[revoke + 1]) throw new Error('--revoke needs the kid of a previous key');
  const rollout = process.argv.indexOf('--rollout-seconds');
  const rolloutSeconds = rollout >= 0 ? Number(process.argv[rollout + 1]) : undefined;
  if (rolloutSeconds !== undefined && !(Number.isInteger(rolloutSeconds) && rolloutSeconds >= 0)) throw new Error('--rollout-seconds needs whole seconds');
  // The service's token lifetime (as the service reads it), which bounds how long a previous signing key still verifies.
  const tokenTtlSeconds = () => loadEnv().tokenTtlSeconds;
  const next =
    revoke >= 0
      ? revokeKey(material, process.argv[revoke + 1])
      : process.argv.includes('--stage')
        ? await stageRotation(material)
        : process.argv.includes('--promote')
          ? promoteStagedRotation(material, { rolloutSeconds, tokenTtlSeconds: tokenTtlSeconds() })
          : await rotateKeyMaterial(material, { blindIndex: process.argv.includes('--blind-index'), tokenTtlSeconds: tokenTtlSeconds() });
  process.stdout.write(`${JSON.stringify(next)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`keys:rotate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
