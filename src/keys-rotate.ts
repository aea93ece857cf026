// `npm run --silent keys:rotate [-- --blind-index]`: reads the current SERVICE_KEYS from the
// environment and prints the next key document (one line of JSON) to stdout: fresh signing, `enc`
// and data keys, the current ones kept as previous, the signing key with its retirement time
// (CONTRACT sections 3 and 12). With --blind-index the blind-index key is rotated too; run
// `npm run keys:reindex` before serving with it. `-- --revoke <kid>` prints the document without
// that previous key instead (nothing rotated). With several instances, rotate in two steps, each
// deployed to every instance before the next (docs/operations.md): `-- --stage` lists fresh keys
// that every instance accepts and none uses yet; `-- --promote [--rollout-seconds N]` makes them
// current (the old signing key retired N seconds later, default 900: the rollout's length).
import { parseArgs } from 'node:util';
import { loadEnv } from './config/env';
import { parseKeyMaterial, promoteStagedRotation, revokeKey, rotateKeyMaterial, stageRotation } from './infrastructure/crypto/key-store';

/** What the tool was asked to do. */
export type RotateRequest =
  { kind: 'rotate'; blindIndex: boolean } | { kind: 'stage' } | { kind: 'promote'; rolloutSeconds: number | undefined } | { kind: 'revoke'; kid: string };

/**
 * The tool's options, strictly: an unknown or misspelt option (`--stag`) is refused rather than
 * taken for a one-step rotation, whose document breaks a deployment of several instances.
 */
export function rotateRequest(args: readonly string[]): RotateRequest {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      'blind-index': { type: 'boolean' },
      stage: { type: 'boolean' },
      promote: { type: 'boolean' },
      'rollout-seconds': { type: 'string' },
      revoke: { type: 'string' },
    },
  });
  const steps = (['stage', 'promote', 'revoke'] as const).filter((name) => values[name] !== undefined);
  if (steps.length > 1) throw new Error(`--${steps.join(' and --')} cannot go together`);
  const [step] = steps;
  if (values['blind-index'] && step !== undefined) throw new Error('--blind-index goes only with a one-step rotation (no --stage, --promote or --revoke)');
  if (values['rollout-seconds'] !== undefined && step !== 'promote') throw new Error('--rollout-seconds goes only with --promote');
  if (step === 'revoke') {
    if (!values.revoke) throw new Error('--revoke needs the kid of a previous key');
    return { kind: 'revoke', kid: values.revoke };
  }
  if (step === 'stage') return { kind: 'stage' };
  if (step === 'promote') {
    const raw = values['rollout-seconds'];
    const rolloutSeconds = raw === undefined ? undefined : Number(raw);
    if (rolloutSeconds !== undefined && !(/^\d+$/.test(raw as string) && Number.isSafeInteger(rolloutSeconds)))
      throw new Error('--rollout-seconds needs whole seconds');
    return { kind: 'promote', rolloutSeconds };
  }
  return { kind: 'rotate', blindIndex: values['blind-index'] === true };
}

async function main(): Promise<void> {
  const request = rotateRequest(process.argv.slice(2));
  const current = process.env.SERVICE_KEYS;
  if (!current) throw new Error('SERVICE_KEYS (the key document in use) must be set');
  const material = parseKeyMaterial(current, 'SERVICE_KEYS');
  // The service's token lifetime (as the service reads it), which bounds how long a previous signing key still verifies.
  const tokenTtlSeconds = () => loadEnv().tokenTtlSeconds;
  const next =
    request.kind === 'revoke'
      ? revokeKey(material, request.kid)
      : request.kind === 'stage'
        ? await stageRotation(material)
        : request.kind === 'promote'
          ? promoteStagedRotation(material, { rolloutSeconds: request.rolloutSeconds, tokenTtlSeconds: tokenTtlSeconds() })
          : await rotateKeyMaterial(material, { blindIndex: request.blindIndex, tokenTtlSeconds: tokenTtlSeconds() });
  process.stdout.write(`${JSON.stringify(next)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`keys:rotate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
