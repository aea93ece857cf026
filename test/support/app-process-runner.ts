import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { EnrollmentClient } from '../../client/enrollment-client';
import { schemaCheck } from './schema-check';
import { PARTNERS, PartnerName, TestApp } from './test-app';

export interface AppProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout so far (its log lines, when LOG_LEVEL lets them through). */
  output(): string;
  client(partner?: PartnerName): EnrollmentClient;
  /** SIGTERM (graceful) by default; SIGKILL to simulate a crash. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const ROOT = path.resolve(__dirname, '..', '..');

/** Starts another OS process of the app against the same database and schema as `peer`. */
export async function spawnAppProcess(peer: TestApp, env: Record<string, string> = {}): Promise<AppProcess> {
  // As the start script and the image: the telemetry preload first (it starts nothing without OTEL_EXPORTER_OTLP_ENDPOINT).
  const preload = path.join(ROOT, 'src/infrastructure/telemetry/preload.ts');
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', '-r', preload, path.join(ROOT, 'test/support/app-process.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.spec.json'),
      APP_MODE: 'sandbox',
      DATABASE_URL: peer.config.env.databaseUrl,
      DB_SCHEMA: peer.schema,
      DATA_DIR: peer.config.env.dataDir,
      SERVICE_CONFIG: peer.config.env.serviceConfigPath,
      PUBLIC_URL: peer.config.env.publicUrl,
      LOG_LEVEL: 'silent',
      TOKEN_RATE_LIMIT: '1000000',
      WEBHOOK_TEST_RATE_LIMIT: '1000000',
      // As startTestApp: above every concurrency spec's own concurrency (CONTRACT section 15).
      PARTNER_MAX_IN_FLIGHT: '1000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let out = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app process did not start in 60 s: ${stderr}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`app process exited with ${code}: ${stderr}`));
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  schemaCheck.watch(baseUrl);
  return {
    baseUrl,
    child,
    output: () => out,
    client: (partner = 'acme') =>
      new EnrollmentClient({
        baseUrl,
        ...PARTNERS[partner],
        retry: {
          ranges: [
            [1, 5],
            [5, 20],
            [20, 50],
          ],
        },
      }),
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
