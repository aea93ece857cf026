import { Linter } from 'eslint';
import * as tseslint from 'typescript-eslint';

// The repository's own lint configuration, so the specs check the rules `npm run lint` runs.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require('../../../eslint.config.js') as Linter.Config[];

/**
 * A named block of the repository's ESLint configuration, and what it reports on planted code
 * (`ruleId: line` per message), as if the code were the file `filename`.
 */
export function lintBlock(name: string, filename: string): { block: Linter.Config | undefined; messagesOf: (code: string) => string[] } {
  const block = config.find((entry) => entry.name === name);
  const linter = new Linter({ configType: 'flat' });
  const flat: Linter.Config[] = [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as Linter.Parser } },
    { ...block, files: ['**/*.ts'] },
  ];
  return { block, messagesOf: (code) => linter.verify(code, flat, { filename }).map((message) => `${message.ruleId}: ${message.line}`) };
}
