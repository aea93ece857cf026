import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { uniqueSchema } from './support/test-app';

const ROOT = path.resolve(__dirname, '..');

/** `npm run migration:run`'s program (src/migrations-run.ts), as an operator runs it before a deployment. */
function migrate(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'src', 'migrations-run.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.spec.json'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every migration the repository holds. */
const MIGRATIONS = fs.readdirSync(path.join(__dirname, '..', 'src', 'infrastructure', 'database', 'migrations')).filter((file) => file.endsWith('.ts')).length;

describe('npm run migration:run (e2e)', () => {
  it('migrates a DB_SCHEMA that does not exist yet, as the service does at start, and again with nothing to do', async () => {
    const schema = uniqueSchema('migration-run');
    const env = { DATABASE_URL: process.env.DATABASE_URL as string, DB_SCHEMA: schema };
    // The first run says what it applied (every migration, the first to the last), the second that there was nothing to do.
    const first = await migrate(env);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(new RegExp(`^applied ${MIGRATIONS} migrations to schema "${schema}": InitialSchema\\d+, .*\\n$`));
    const second = await migrate(env);
    expect(second).toEqual({ code: 0, stdout: `migrations of schema "${schema}" are up to date\n`, stderr: '' });
    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from information_schema.tables where table_schema = $1 and table_name = 'accounts'`,
        [schema],
      );
      expect(rows[0]?.n).toBe(1);
    } finally {
      await db.query(`drop schema if exists "${schema}" cascade`);
      await db.end();
    }
  });

  it('in production, refuses a DATABASE_URL without TLS as the service does (CONTRACT section 12), unless DATABASE_TLS=off', async () => {
    const env = { APP_MODE: 'production', DATABASE_URL: process.env.DATABASE_URL as string, DB_SCHEMA: uniqueSchema('migration-run-prod') };
    const refused = await migrate(env);
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 1,
      stderr:
        'migration:run failed: APP_MODE=production: DATABASE_URL must use TLS (sslmode=require, verify-ca or verify-full), or set DATABASE_TLS=off to say it is not\n',
    });
    expect((await migrate({ ...env, DATABASE_TLS: 'off' })).code).toBe(0);
    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    await db.query(`drop schema if exists "${env.DB_SCHEMA}" cascade`).finally(() => db.end());
  });

  it('without DATABASE_URL: one line, exit 1', async () => {
    const { code, stderr } = await migrate({});
    expect({ code, stderr }).toEqual({ code: 1, stderr: 'migration:run failed: DATABASE_URL must be set\n' });
  });
});
