import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** Runs the project's dependency rules (the ones `npm run lint` applies) on a small tree written for the test. */
function cruise(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'depcruise-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'ES2022', strict: true } }));
    try {
      execFileSync(process.execPath, [DEPCRUISE, 'src', '--config', path.join(ROOT, '.dependency-cruiser.js'), '--output-type', 'err'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: 'pipe',
      });
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('dependency rules (npm run lint)', () => {
  it("refuse a module importing another module's entities, even for a type", () => {
    const out = cruise({
      'src/modules/accounts/entities/account.entity.ts': 'export class Account { id!: string; }\n',
      'src/modules/care/care.service.ts': "import type { Account } from '../accounts/entities/account.entity';\nexport const f = (a: Account) => a.id;\n",
    });
    expect(out).toContain('no-foreign-entities: src/modules/care/care.service.ts → src/modules/accounts/entities/account.entity.ts');
  });

  it("allow a module its own entities and another module's type surface", () => {
    const out = cruise({
      'src/modules/accounts/entities/account.entity.ts': 'export class Account { id!: string; }\n',
      'src/modules/accounts/account.types.ts': "export type { Account } from './entities/account.entity';\n",
      'src/modules/accounts/account.repository.ts': "import { Account } from './entities/account.entity';\nexport const make = () => new Account();\n",
      'src/modules/care/care.service.ts': "import type { Account } from '../accounts/account.types';\nexport const f = (a: Account) => a.id;\n",
    });
    expect(out).toBe('');
  });

  it('refuse common/ importing infrastructure/, infrastructure importing modules, and cycles', () => {
    const out = cruise({
      'src/infrastructure/database/db.ts': "import { x } from '../../modules/a/a';\nexport const db = x;\n",
      'src/common/pipe.ts': "import { db } from '../infrastructure/database/db';\nexport const p = db;\n",
      'src/modules/a/a.ts': "import { b } from '../b/b';\nexport const x = 1; export const y = b;\n",
      'src/modules/b/b.ts': "import { y } from '../a/a';\nexport const b = 2; export const z = y;\n",
    });
    expect(out).toContain('common-not-infrastructure: src/common/pipe.ts → src/infrastructure/database/db.ts');
    expect(out).toContain('infrastructure-not-modules: src/infrastructure/database/db.ts → src/modules/a/a.ts');
    expect(out).toMatch(/no-cycles: src\/modules\/(a\/a|b\/b)\.ts/);
  });
});
