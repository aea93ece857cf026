/**
 * Child processes of the bench and the soak: the service from the production build (the same
 * `dist/src/main.js` partners run), the baseline server, and the embedded PostgreSQL.
 */
import { ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { projectRoot } from '../src/config/env';

export const ROOT = projectRoot();
const DIST = path.join(ROOT, 'dist');

interface EmbeddedDbModule {
  startEmbeddedPostgres(options: {
    dataDir: string;
    port?: number;
    log?: (line: string) => void;
  }): Promise<{ url: string; port: number; stop: () => Promise<void> }>;
  stopPostmaster(dataDir: string): Promise<void>;
  freePort(): Promise<number>;
}

export function embeddedDb(): EmbeddedDbModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS script located at run time
  return require(path.join(ROOT, 'scripts', 'embedded-db.js')) as EmbeddedDbModule;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly port: number;
  readonly baseUrl: string;
  /** Sends a message to the SQL probe and waits for the answer of the given type. */
  ask<T>(message: object, answer: string): Promise<T>;
  /** Graceful stop (SIGTERM): the service closes and, under --cpu-prof, writes its profile. */
  stop(): Promise<void>;
  /** SIGKILL, for the soak's fault injection. */
  kill(): Promise<void>;
}

export interface ServiceOptions {
  env: Record<string, string>;
  port?: number;
  logFile: string;
  /** Count SQL statements per request (bench calibration). */
  probe?: boolean;
  /** Also `--require` the telemetry preload (main.js imports it first anyway; bench:tracing's A/A variant). */
  telemetryPreload?: boolean;
  cpuProfDir?: string;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function waitReady(baseUrl: string, child: ChildProcess, logFile: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}; see ${logFile}`);
    try {
      const response = await fetch(`${baseUrl}/health/ready`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`service not ready after ${timeoutMs} ms; see ${logFile}`);
}

/** Starts `node dist/src/main.js` with the given environment, its output appended to logFile. */
export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const out = fs.openSync(options.logFile, 'a');
  const execArgv: string[] = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  if (options.telemetryPreload) execArgv.push('-r', path.join(DIST, 'src', 'infrastructure', 'telemetry', 'preload.js'));
  if (options.probe) execArgv.push('-r', path.join(DIST, 'bench', 'sql-probe.js'));
  if (options.cpuProfDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`);
  const child = fork(path.join(DIST, 'src', 'main.js'), [], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...options.env, HOST: '127.0.0.1', PORT: String(port) },
    execArgv,
    stdio: ['ignore', out, out, 'ipc'],
  });
  fs.closeSync(out);
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(baseUrl, child, options.logFile);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    child,
    port,
    baseUrl,
    ask: (message, answer) => askChild(child, message, answer),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited(child);
      clearTimeout(timer);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}

function askChild<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no ${answer} from child`));
    }, 10_000);
    const onMessage = (reply: Record<string, unknown>) => {
      if (Object.values(reply).includes(answer)) {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(reply as T);
      }
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

export interface BaselineProcess {
  readonly baseUrl: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

export async function startBaseline(env: Record<string, string>, logFile: string): Promise<BaselineProcess> {
  const out = fs.openSync(logFile, 'a');
  const child = fork(path.join(DIST, 'bench', 'baseline-server.js'), [], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', out, out, 'ipc'],
  });
  fs.closeSync(out);
  const ready = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message));
    child.once('exit', (code) => reject(new Error(`baseline server exited with ${code}; see ${logFile}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${ready.port}`,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}
