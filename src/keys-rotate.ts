// `npm run --silent keys:rotate [-- --blind-index]`: reads the current SERVICE_KEYS from the
// environment and prints the next key document (one line of JSON) to stdout: fresh signing, `enc`
// and data keys, the current ones kept as previous (CONTRACT section 12). With --blind-index the
// blind-index key is rotated too; run `npm run keys:reindex` before serving with it.
import { parseKeyMaterial, rotateKeyMaterial } from './infrastructure/crypto/key-store';

async function main(): Promise<void> {
  const current = process.env.SERVICE_KEYS;
  if (!current) throw new Error('SERVICE_KEYS (the key document in use) must be set');
  const next = await rotateKeyMaterial(parseKeyMaterial(current, 'SERVICE_KEYS'), { blindIndex: process.argv.includes('--blind-index') });
  process.stdout.write(`${JSON.stringify(next)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`keys:rotate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
