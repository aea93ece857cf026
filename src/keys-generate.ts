// `npm run --silent keys:generate`: prints a complete, fresh SERVICE_KEYS value (one line of JSON)
// to stdout (CONTRACT section 12). Nothing else is written to stdout.
import { generateKeyMaterial } from './infrastructure/crypto/key-store';

generateKeyMaterial()
  .then((material) => process.stdout.write(`${JSON.stringify(material)}\n`))
  .catch((error: unknown) => {
    process.stderr.write(`keys:generate failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
