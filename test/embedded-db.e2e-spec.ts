import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// The launcher `npm start`, `npm run bench` and Jest's global setup share (scripts/embedded-db.js),
// driven from a process of its own: what is checked is when that process can exit.
const LAUNCHER = path.resolve(__dirname, '..', 'scripts', 'embedded-db.js');
const SCRIPT = `
const { Client } = require('pg');
const { startEmbeddedPostgres } = require(${JSON.stringify(LAUNCHER)});
(async () => {
  const db = await startEmbeddedPostgres({ dataDir: process.argv[1], log: () => undefined });
  const client = new Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query('select 1 as one');
  await client.end();
  await db.stop();
  process.stdout.write(JSON.stringify({ rows }) + '\\n');
})();
`;

interface Run {
  output: string;
  code: number | null;
  /** Milliseconds from the launcher's last line (the server stopped) to the process's exit. */
  exitAfterStopMs: number;
}

function runLauncher(dataDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SCRIPT, dataDir], { cwd: path.resolve(__dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    let stoppedAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      stoppedAt ??= Date.now();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ output, code, exitAfterStopMs: Date.now() - (stoppedAt ?? Date.now()) }));
  });
}

describe('The embedded PostgreSQL launcher (e2e)', () => {
  let dataRoot: string;

  beforeAll(() => {
    dataRoot = mkdtempSync(path.join(tmpdir(), 'embedded-db-spec-'));
  });

  afterAll(() => {
    rmSync(dataRoot, { recursive: true, force: true });
  });

  it('serves a database, and once stopped leaves nothing to hold its process up (Jest used to wait 15 s more)', async () => {
    const run = await runLauncher(path.join(dataRoot, 'pg'));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.output)).toEqual({ rows: [{ one: 1 }] });
    // The stop used to leave its 15 s grace timer running after the server had exited.
    expect(run.exitAfterStopMs).toBeLessThan(5000);
  });

  it('a port another program holds: the start fails within its bound, saying why (it hung on a listener that never answered)', async () => {
    // A listener that accepts connections and never answers, on the port the server is asked for.
    const squatter: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const port = (squatter.address() as { port: number }).port;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startEmbeddedPostgres } = require(LAUNCHER) as { startEmbeddedPostgres: (options: object) => Promise<{ stop: () => Promise<void> }> };
    const started = Date.now();
    try {
      await expect(startEmbeddedPostgres({ dataDir: path.join(dataRoot, 'busy'), port, log: () => undefined })).rejects.toThrow(
        /^PostgreSQL exited with code 1: .*could not bind IPv4 address "127\.0\.0\.1": Address already in use/,
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      squatter.close();
    }
  }, 60_000);

  it('a port another embedded PostgreSQL serves (another data folder): the start fails naming the port, and never connects to that database', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startEmbeddedPostgres } = require(LAUNCHER) as {
      startEmbeddedPostgres: (options: object) => Promise<{ port: number; url: string; stop: () => Promise<void> }>;
    };
    const first = await startEmbeddedPostgres({ dataDir: path.join(dataRoot, 'first'), log: () => undefined });
    try {
      // It used to connect to the first server (same user and password) before seeing its own exit.
      await expect(startEmbeddedPostgres({ dataDir: path.join(dataRoot, 'second'), port: first.port, log: () => undefined })).rejects.toThrow(
        new RegExp(`^port ${first.port} is already served by another PostgreSQL`),
      );
    } finally {
      await first.stop();
    }
  }, 90_000);
});
