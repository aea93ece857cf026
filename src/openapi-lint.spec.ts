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
