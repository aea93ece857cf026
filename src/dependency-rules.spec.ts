import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.js');
const KNOWN = path.join(ROOT, '.dependency-cruiser-known-violations.json');

interface KnownViolation {
  type: string;
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

/** depcruise over `src` in `cwd` with the project's rules; its output, violations or not. */
function depcruise(cwd: string, ...args: string[]): string {
  try {
    return execFileSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, ...args], { cwd, encoding: 'utf8', stdio: 'pipe', maxBuffer: 64 << 20 });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error);
  }
}

/** Runs `check` in a small tree written for the test. */
function inTree<T>(files: Record<string, string>, check: (dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'depcruise-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', target: 'ES2022', strict: true } }));
    // The project's packages, so that an import of fastify resolves as it does in src.
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    return check(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the project's dependency rules (the ones `npm run lint` applies) on a small tree written for the test. */
function cruise(files: Record<string, string>, ...args: string[]): string {
  return inTree(files, (dir) => {
    const out = depcruise(dir, '--output-type', 'err', ...args);
    return out.includes('no dependency violations found') ? '' : out;
  });
}

/**
 * The first cycle of the module graph (src/modules/<name> → the modules its files import), e.g.
 * `['a', 'b', 'a']`, or null. Exact where the folder-scoped rule is not: it also sees a cycle whose
 * imports all land in other modules' subfolders.
 */
function moduleCycle(cwd: string): string[] | null {
  const cruised = JSON.parse(depcruise(cwd, '--output-type', 'json', '--include-only', '^src/modules/')) as {
    modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
  };
  const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];
  const graph = new Map<string, Set<string>>();
  for (const { source, dependencies } of cruised.modules) {
    const from = moduleOf(source);
    for (const to of dependencies.map((dependency) => moduleOf(dependency.resolved))) {
      if (from && to && to !== from) graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  const acyclic = new Set<string>();
  const visit = (node: string, trail: string[]): string[] | null => {
    if (trail.includes(node)) return [...trail.slice(trail.indexOf(node)), node];
    if (acyclic.has(node)) return null;
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...trail, node]);
      if (cycle) return cycle;
    }
    acyclic.add(node);
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return null;
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

  it("refuse a module importing another module's repository, even for a type, and allow its own", () => {
    const out = cruise({
      'src/modules/accounts/repositories/account.repository.ts': 'export class AccountRepository { find() { return 1; } }\n',
      'src/modules/accounts/services/account.service.ts':
        "import { AccountRepository } from '../repositories/account.repository';\nexport const s = new AccountRepository();\n",
      'src/modules/care/services/care.service.ts':
        "import type { AccountRepository } from '../../accounts/repositories/account.repository';\nexport const f = (r: AccountRepository) => r.find();\n",
    });
    expect(out).toContain('no-foreign-repositories: src/modules/care/services/care.service.ts → src/modules/accounts/repositories/account.repository.ts');
    expect(out).not.toContain('account.service.ts');
  });

  it("refuse a module importing anything of another module's repositories/ folder, a row type or column list too", () => {
    const out = cruise({
      'src/modules/accounts/repositories/account-rows.ts': 'export const ACCOUNT_COLUMNS = "a.id";\n',
      'src/modules/accounts/account-columns.ts': 'export const PUBLIC_COLUMNS = "a.id";\n',
      'src/modules/care/services/care-read.ts':
        "import { ACCOUNT_COLUMNS } from '../../accounts/repositories/account-rows';\nimport { PUBLIC_COLUMNS } from '../../accounts/account-columns';\nexport const c = [ACCOUNT_COLUMNS, PUBLIC_COLUMNS];\n",
    });
    expect(out).toContain('no-foreign-repositories: src/modules/care/services/care-read.ts → src/modules/accounts/repositories/account-rows.ts');
    expect(out).not.toContain('account-columns.ts');
  });

  it('refuse common/ importing a module', () => {
    const out = cruise({
      'src/modules/user/user.types.ts': 'export interface User { id: string; }\n',
      'src/common/http/envelope.ts': "import type { User } from '../../modules/user/user.types';\nexport const id = (u: User) => u.id;\n",
    });
    expect(out).toContain('common-not-modules: src/common/http/envelope.ts → src/modules/user/user.types.ts');
  });

  it('refuse a service importing Fastify or src/common/http, and leave controllers to them', () => {
    const out = cruise({
      'src/common/http/answer.ts': 'export const answer = (status: number) => ({ status });\n',
      'src/modules/user/services/user.service.ts':
        "import type { FastifyRequest } from 'fastify';\nimport { answer } from '../../../common/http/answer';\nexport const f = (r: FastifyRequest) => answer(r.id.length);\n",
      'src/modules/user/controllers/user.controller.ts':
        "import type { FastifyRequest } from 'fastify';\nimport { answer } from '../../../common/http/answer';\nexport const g = (r: FastifyRequest) => answer(r.id.length);\n",
    });
    expect(out).toContain('services-not-http: src/modules/user/services/user.service.ts → src/common/http/answer.ts');
    expect(out).toMatch(/services-not-http: src\/modules\/user\/services\/user\.service\.ts → \S*node_modules\/fastify\//);
    expect(out).not.toContain('user.controller.ts');
  });

  it('refuse any file of a services/ folder, and the call runner, importing src/common/http', () => {
    const out = cruise({
      'src/common/http/envelope.ts': 'export const envelope = (id: string) => ({ id });\n',
      'src/modules/user/services/user-codec.ts': "import { envelope } from '../../../common/http/envelope';\nexport const f = envelope;\n",
      'src/modules/locking/call-runner.ts': "import { envelope } from '../../common/http/envelope';\nexport const g = envelope;\n",
      'src/modules/locking/call-answer.ts': "import { envelope } from '../../common/http/envelope';\nexport const h = envelope;\n",
    });
    expect(out).toContain('services-not-http: src/modules/user/services/user-codec.ts → src/common/http/envelope.ts');
    expect(out).toContain('services-not-http: src/modules/locking/call-runner.ts → src/common/http/envelope.ts');
    expect(out).not.toContain('call-answer.ts');
  });

  it('refuse src importing test or bench code, outside spec files', () => {
    const out = cruise({
      'test/support/mock-of.ts': 'export const mockOf = 1;\n',
      'bench/load.ts': 'export const load = 1;\n',
      'src/modules/user/services/user.service.ts': "import { mockOf } from '../../../../test/support/mock-of';\nexport const m = mockOf;\n",
      'src/infrastructure/metrics/metrics.ts': "import { load } from '../../../bench/load';\nexport const l = load;\n",
      'src/modules/user/services/user.service.spec.ts': "import { mockOf } from '../../../../test/support/mock-of';\nexport const n = mockOf;\n",
    });
    expect(out).toContain('no-test-code-in-src: src/modules/user/services/user.service.ts → test/support/mock-of.ts');
    expect(out).toContain('no-test-code-in-src: src/infrastructure/metrics/metrics.ts → bench/load.ts');
    expect(out).not.toContain('user.service.spec.ts');
  });

  it("refuse a service importing @nestjs/common's HTTP exceptions and request decorators (ESLint)", () => {
    const text =
      "import { HttpException, Injectable, Req } from '@nestjs/common';\n@Injectable()\nexport class S {\n  f(r: unknown) { return [HttpException, Req, r]; }\n}\n";
    const restricted = (file: string) => {
      const args = [path.join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--format', 'json', '--stdin', '--stdin-filename', file];
      let out: string;
      try {
        out = execFileSync(process.execPath, args, { cwd: ROOT, input: text, encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        out = String((error as { stdout?: string }).stdout);
      }
      const [result] = JSON.parse(out) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>;
      return result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message);
    };
    expect(restricted('src/modules/user/services/user.service.ts')).toEqual([
      expect.stringContaining("'HttpException' import from '@nestjs/common' is restricted"),
      expect.stringContaining("'Req' import from '@nestjs/common' is restricted"),
    ]);
    expect(restricted('src/modules/user/controllers/user.controller.ts')).toEqual([]);
  }, 30_000);

  it('check spec files too', () => {
    const out = cruise({
      'src/infrastructure/crypto/keys.ts': 'export const key = 1;\n',
      'src/common/pipe.spec.ts': "import { key } from '../infrastructure/crypto/keys';\nexport const k = key;\n",
    });
    expect(out).toContain('common-not-infrastructure: src/common/pipe.spec.ts → src/infrastructure/crypto/keys.ts');
  });

  it('pass a violation listed in the known-violations file (--ignore-known, as npm run lint runs) and still refuse a new one', () => {
    const known: KnownViolation[] = [
      {
        type: 'dependency',
        from: 'src/modules/care/care.service.ts',
        to: 'src/modules/accounts/account.repository.ts',
        rule: { name: 'no-foreign-repositories', severity: 'error' },
      },
    ];
    const files = {
      'src/modules/accounts/account.repository.ts': 'export const repo = 1;\n',
      'src/modules/care/care.service.ts': "import { repo } from '../accounts/account.repository';\nexport const c = repo;\n",
      'src/modules/cards/cards.service.ts': "import { repo } from '../accounts/account.repository';\nexport const d = repo;\n",
      'known.json': JSON.stringify(known),
    };
    const out = cruise(files, '--ignore-known', 'known.json');
    expect(out).toContain('no-foreign-repositories: src/modules/cards/cards.service.ts → src/modules/accounts/account.repository.ts');
    expect(out).not.toContain('src/modules/care/care.service.ts →');
  });

  it('list in the known-violations file only violations src still has (fixing one means removing it: npm run lint:baseline)', () => {
    const known = JSON.parse(fs.readFileSync(KNOWN, 'utf8')) as KnownViolation[];
    const found = JSON.parse(depcruise(ROOT, '--output-type', 'json')) as { summary: { violations: KnownViolation[] } };
    const key = (v: KnownViolation) => `${v.rule.name}: ${v.from} → ${v.to}`;
    const current = new Set(found.summary.violations.map(key));
    expect(known.map(key).filter((violation) => !current.has(violation))).toEqual([]);
  }, 60_000);

  it('refuse a cycle between module folders even where no file cycle exists (accounts → user → accounts, as before account-views)', () => {
    const out = cruise({
      'src/modules/user/user.types.ts': 'export interface User { id: string; }\n',
      'src/modules/user/user.module.ts': 'export class UserModule {}\n',
      'src/modules/accounts/accounts.module.ts':
        "import { UserModule } from '../user/user.module';\nexport class AccountsModule { static uses = UserModule; }\n",
      'src/modules/accounts/services/account-view.service.ts': "import type { User } from '../../user/user.types';\nexport const view = (u: User) => u.id;\n",
      'src/modules/user/user-profile.module.ts':
        "import { AccountsModule } from '../accounts/accounts.module';\nexport class UserProfileModule { static uses = AccountsModule; }\n",
    });
    expect(out).not.toContain('no-cycles:');
    expect(out).toMatch(/no-module-cycles: src\/modules\/accounts → \s*src\/modules\/user →\s*src\/modules\/accounts/);
  });

  it('find a module cycle that only the whole module graph shows (every import into a subfolder)', () => {
    const files = {
      'src/modules/a/services/a.service.ts': "import { b } from '../../b/repositories/b.repository';\nexport const a = b;\n",
      'src/modules/a/repositories/a.repository.ts': 'export const ra = 1;\n',
      'src/modules/b/services/b.service.ts': "import { ra } from '../../a/repositories/a.repository';\nexport const sb = ra;\n",
      'src/modules/b/repositories/b.repository.ts': 'export const b = 2;\n',
    };
    expect(inTree(files, moduleCycle)).toEqual(['a', 'b', 'a']);
  });

  it("find no repository in a Nest module's exports (other modules call its services)", () => {
    const moduleFiles = (fs.readdirSync(path.join(ROOT, 'src/modules'), { recursive: true }) as string[]).filter((file) => file.endsWith('.module.ts'));
    expect(moduleFiles.length).toBeGreaterThan(10);
    const exported = moduleFiles.flatMap((file) => {
      const text = fs.readFileSync(path.join(ROOT, 'src/modules', file), 'utf8');
      const names = /exports:\s*\[([^\]]*)\]/.exec(text)?.[1].split(',') ?? [];
      return names
        .map((name) => name.trim())
        .filter((name) => name.endsWith('Repository'))
        .map((name) => `${file}: ${name}`);
    });
    expect(exported).toEqual([]);
  });

  it('find no cycle in the module graph of src', () => {
    expect(moduleCycle(ROOT)).toBeNull();
  }, 60_000);
});
