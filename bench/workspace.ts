/**
 * A throw-away place for one bench or soak run: a folder under .data/, a PostgreSQL (the embedded
 * server in that folder, or DATABASE_URL when set, in a schema of its own), and a service config
 * with one partner and one program.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from 'pg';
import { embeddedDb, freePort, ROOT, sleep } from './processes';

export const BENCH_PROGRAM = 'bench';
/** The bench partner's scopes: a token asked for without `scope` carries them all, in this order. */
export const BENCH_PARTNER_SCOPES = ['enrollments', 'users', 'business_profiles', 'identity', 'webhooks'] as const;
export const BENCH_PARTNER = { clientId: 'bench-partner', clientSecret: `bench-${randomBytes(12).toString('hex')}` };

/** The load settings `npm run bench` and `bench:tracing` share (bench/README.md, "Settings and output"). */
export function loadSettings(env: NodeJS.ProcessEnv = process.env) {
  return {
    durationSeconds: Number(env.BENCH_DURATION ?? 10),
    warmupSeconds: Number(env.BENCH_WARMUP ?? 5),
    connections: Number(env.BENCH_CONNECTIONS ?? 50),
    rounds: Math.max(1, Number(env.BENCH_ROUNDS ?? 2)),
    scenarios: env.BENCH_SCENARIOS?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    out: path.resolve(env.BENCH_OUT ?? path.join(ROOT, 'bench', 'results')),
    keep: env.BENCH_KEEP === '1',
  };
}

const BENCH_BASIC = Buffer.from(`${BENCH_PARTNER.clientId}:${BENCH_PARTNER.clientSecret}`).toString('base64');

/** The bench partner's token request (client_credentials, client_secret_basic), a fresh object each time. */
export function benchTokenRequest(): { method: 'POST'; path: string; headers: Record<string, string>; body: string } {
  return {
    method: 'POST',
    path: '/oauth2/token',
    headers: { authorization: `Basic ${BENCH_BASIC}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  };
}

/** The access token of a token answer; any other answer throws. */
export function accessTokenOf(status: number, text: string): string {
  const token = status === 200 ? (JSON.parse(text) as { access_token?: string }).access_token : undefined;
  if (!token) throw new Error(`token request failed with ${status}`);
  return token;
}

/** A bearer token for the bench partner from the service at `baseUrl`. */
export async function benchPartnerToken(baseUrl: string): Promise<string> {
  const { path: tokenPath, ...init } = benchTokenRequest();
  const response = await fetch(`${baseUrl}${tokenPath}`, init);
  return accessTokenOf(response.status, await response.text());
}

export interface Workspace {
  readonly dir: string;
  readonly databaseUrl: string;
  /** Schema of the service's tables. */
  readonly schema: string;
  readonly configFile: string;
  /** Embedded server only: its data folder and port (the soak restarts it). */
  readonly embedded?: { dataDir: string; port: number };
  /** The environment a service instance needs. */
  serviceEnv(extra?: Record<string, string>): Record<string, string>;
  db(): Promise<Client>;
  /** Embedded server only: stops the postmaster (by its postmaster.pid) and starts it again, same port and folder. */
  restartDatabase(downtimeMs?: number): Promise<void>;
  dispose(): Promise<void>;
}

export interface WorkspaceOptions {
  label: string;
  /** Program overrides, e.g. limits for the soak. */
  program?: Record<string, unknown>;
  webhookUrl?: string;
  webhookSecret?: string;
  keep?: boolean;
}

export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const dir = path.join(ROOT, '.data', `${options.label}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o755);
  const external = process.env.DATABASE_URL;
  let stopDb: (() => Promise<void>) | undefined;
  let restart: ((downtimeMs: number) => Promise<void>) | undefined;
  let embedded: Workspace['embedded'];
  let databaseUrl: string;
  if (external) {
    databaseUrl = external;
  } else {
    const dataDir = path.join(dir, 'pg');
    const db = await embeddedDb().startEmbeddedPostgres({ dataDir, port: await freePort() });
    databaseUrl = db.url;
    embedded = { dataDir, port: db.port };
    let current = db;
    stopDb = async () => {
      await current.stop().catch(() => undefined);
      await embeddedDb().stopPostmaster(dataDir);
    };
    restart = async (downtimeMs) => {
      await embeddedDb().stopPostmaster(dataDir);
      await sleep(downtimeMs);
      current = await embeddedDb().startEmbeddedPostgres({ dataDir, port: db.port });
    };
  }
  const schema = external ? `${options.label.replace(/[^a-z0-9]/g, '_')}_${process.pid}` : 'public';
  const configFile = path.join(dir, 'service-config.json');
  writeConfig(configFile, options);
  const connect = async () => {
    const client = new Client({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
    await client.connect();
    return client;
  };
  return {
    dir,
    databaseUrl,
    schema,
    configFile,
    embedded,
    serviceEnv: (extra = {}) => ({
      APP_MODE: 'sandbox',
      DATABASE_URL: databaseUrl,
      DB_SCHEMA: schema,
      DATA_DIR: dir,
      SERVICE_CONFIG: configFile,
      LOG_LEVEL: 'info',
      // The per-partner cap above the bench's and soak's own concurrency (CONTRACT section 15).
      PARTNER_MAX_IN_FLIGHT: '1000',
      TOKEN_RATE_LIMIT: '1000000',
      // Webhook test events are part of the soak's and the failover's traffic, not a flood.
      WEBHOOK_TEST_RATE_LIMIT: '1000000',
      ...extra,
    }),
    db: connect,
    async restartDatabase(downtimeMs = 0) {
      if (!restart) throw new Error('restartDatabase needs the embedded PostgreSQL (DATABASE_URL is set)');
      await restart(downtimeMs);
    },
    async dispose() {
      if (external && !options.keep) {
        const client = await connect();
        await client.query(`drop schema if exists "${schema}" cascade`).finally(() => client.end());
      }
      await stopDb?.();
      if (!options.keep) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function writeConfig(file: string, options: WorkspaceOptions): void {
  const config = {
    programs: [{ programCode: BENCH_PROGRAM, currencies: ['USD'], kycRequired: true, kybEnabled: true, matriculaEnabled: true, ...(options.program ?? {}) }],
    partners: [
      {
        partnerId: BENCH_PARTNER.clientId,
        ...BENCH_PARTNER,
        programs: [BENCH_PROGRAM],
        scopes: [...BENCH_PARTNER_SCOPES],
        ...(options.webhookUrl ? { webhook: { url: options.webhookUrl, secret: options.webhookSecret } } : {}),
      },
      { partnerId: 'bench-care', clientId: 'bench-care', clientSecret: BENCH_PARTNER.clientSecret, programs: [BENCH_PROGRAM], scopes: ['care'] },
    ],
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
}
