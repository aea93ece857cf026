import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportOpenApiDocuments } from './openapi-export';

const ROOT = path.join(__dirname, '..');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>;
}

/** `redocly lint --format json` of one file, with redocly.yaml (the recommended ruleset). */
function lint(file: string): LintReport {
  const cli = require.resolve('@redocly/cli/bin/cli.js');
  const run = spawnSync(process.execPath, [cli, 'lint', '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json', file], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (!run.stdout.trim()) throw new Error(`redocly lint printed nothing (exit ${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as LintReport;
}

describe(`${exportOpenApiDocuments.name} under Redocly's recommended ruleset`, () => {
  it('lints both documents (partner, care and operations) with no error and no warning', async () => {
    const documents = await exportOpenApiDocuments('http://127.0.0.1:3000');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    try {
      for (const [name, document] of Object.entries(documents)) {
        const file = path.join(dir, `${name}.json`);
        fs.writeFileSync(file, JSON.stringify(document));
        const report = lint(file);
        const problems = report.problems.map((p) => `${name}: ${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
        expect(problems).toEqual([]);
        expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every configuration variable the service reads (`source.NAME` in src/config/env.ts). */
function configVariableNames(): string[] {
  const text = fs.readFileSync(path.join(ROOT, 'src', 'config', 'env.ts'), 'utf8');
  return [...new Set([...text.matchAll(/source\.([A-Z][A-Z0-9_]+)/g)].map((match) => match[1] as string))];
}

/** Every description and summary of a document, with its JSON pointer. */
function texts(value: unknown, pointer = ''): Array<{ pointer: string; text: string }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => texts(item, `${pointer}/${i}`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) =>
    (key === 'description' || key === 'summary') && typeof child === 'string'
      ? [{ pointer: `${pointer}/${key}`, text: child }]
      : texts(child, `${pointer}/${key}`),
  );
}

describe('the published documents speak to their readers', () => {
  it('name no internal document (SERVICE.md, CONTRACT) and no configuration variable', async () => {
    const names = configVariableNames();
    expect(names).toEqual(expect.arrayContaining(['TOKEN_RATE_LIMIT', 'WEBHOOK_TEST_RATE_LIMIT', 'WEBHOOK_TIMEOUT_MS']));
    const internal = new RegExp(`SERVICE\\.md|CONTRACT|\\b(${names.join('|')})\\b`);
    const documents = await exportOpenApiDocuments('http://127.0.0.1:3000');
    const found = Object.entries(documents).flatMap(([name, document]) =>
      texts(document)
        .filter(({ text }) => internal.test(text))
        .map(({ pointer, text }) => `${name}${pointer}: ${internal.exec(text)?.[0]}`),
    );
    expect(found).toEqual([]);
  });

  it('list every property a body or an answer may carry (the service refuses an undeclared request property)', async () => {
    const documents = await exportOpenApiDocuments('http://127.0.0.1:3000');
    const open = Object.entries(documents).flatMap(([name, document]) =>
      Object.entries(document.components?.schemas ?? {})
        .filter(([, schema]) => {
          const object = schema as { properties?: unknown; additionalProperties?: unknown };
          return object.properties !== undefined && object.additionalProperties === undefined;
        })
        .map(([schemaName]) => `${name}: ${schemaName}`),
    );
    expect(open).toEqual([]);
    expect(documents.partner.components?.schemas?.UpdateUserRequestDto).toMatchObject({ additionalProperties: false });
    // RFC 6749 section 3.2: the token endpoint ignores form parameters it does not know.
    expect(documents.partner.components?.schemas?.TokenRequest).toMatchObject({ additionalProperties: true });
  });
});
