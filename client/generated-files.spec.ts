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
});
