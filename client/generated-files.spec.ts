import * as fs from 'node:fs';
import { exportOpenApiDocument } from '../src/openapi-export';

// scripts/sdk-generate.js is plain CommonJS (it also runs outside Jest).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { generatedFiles, PUBLIC_URL } = require('../scripts/sdk-generate.js') as {
  generatedFiles: (documentText: string) => Array<[string, string]>;
  PUBLIC_URL: string;
};

describe('Committed SDK files', () => {
  it('match what the code generates now (client/openapi.json, the types, the .http collection): run `npm run sdk:generate` after an API change', async () => {
    const documentText = `${JSON.stringify(await exportOpenApiDocument(PUBLIC_URL), null, 2)}\n`;
    const stale = generatedFiles(documentText)
      .filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text)
      .map(([file]) => file);
    expect(stale).toEqual([]);
  });

  it('the .http collection uses only variables it defines (its file variables, request names, REST Client system variables)', () => {
    const text = fs.readFileSync('client/sandbox.http', 'utf8');
    const defined = new Set([...text.matchAll(/^@(\w+) = /gm)].map((m) => m[1]));
    const named = new Set([...text.matchAll(/^# @name (\w+)$/gm)].map((m) => m[1]));
    const undefinedUses = [...text.matchAll(/\{\{([^}]+)\}\}/g)]
      .map((m) => (m[1] ?? '').trim())
      .filter((use) => !use.startsWith('$') && !defined.has(use) && !named.has(use.split('.')[0] ?? ''));
    expect([...new Set(undefinedUses)]).toEqual([]);
  });
});
