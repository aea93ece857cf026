import { isIP } from 'node:net';
import * as path from 'node:path';

export type AppMode = 'sandbox' | 'production';

/** Every environment variable the service reads, typed. Nothing else reads `process.env`. */
export interface Env {
  readonly appMode: AppMode;
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string;
  readonly databaseUrl: string | undefined;
  /** PostgreSQL schema holding the tables (tests give each file its own). */
  readonly dbSchema: string;
  readonly embeddedPg: { dir: string; port: number };
  readonly dataDir: string;
  readonly serviceConfigPath: string;
  readonly logLevel: string;
  readonly lockWaitMs: number;
  /** Locked calls one partner may have in flight on this instance (CONTRACT section 12). */
  readonly partnerMaxInFlight: number;
  /** Token requests a minute per client id; ten times that per source address (CONTRACT section 12). */
  readonly tokenRateLimit: number;
  /**
   * Fastify's `trustProxy` (TRUST_PROXY): false (the default: the socket's address is the source),
   * true (trust X-Forwarded-For entirely), or the proxies' addresses/CIDRs. Not a hop count: Fastify
   * 5.12 ignores one (it cannot check the immediate peer), so a count is refused rather than dropped.
   */
  readonly trustProxy: boolean | string;
  /** Client-secret verifications that may wait for scrypt, per lane; beyond it the token endpoint answers 503/503/2 at once. */
  readonly scryptQueueLimit: number;
  /** A request not answered by then gets 503/503/2 (CONTRACT section 12). */
  readonly requestTimeoutMs: number;
  /** Production: the port of the separate metrics listener (unset: no metrics served). */
  readonly metricsPort: number | undefined;
  /** The metrics listener's address (METRICS_HOST, default 127.0.0.1: not beside the partner port on HOST). */
  readonly metricsHost: string;
  /** DATABASE_TLS=off: production accepts a DATABASE_URL without TLS, said explicitly (CONTRACT section 12). */
  readonly databaseTlsOff: boolean;
  /** DOCS_IN_PRODUCTION=true: production serves Swagger UI at /docs too (the documents are always served). */
  readonly docsInProduction: boolean;
  /** statement_timeout of every pooled database connection. */
  readonly dbStatementTimeoutMs: number;
  /** Client-side bound on every query's answer (pg `query_timeout`): a database that stalls without answering. */
  readonly dbQueryTimeoutMs: number;
  /** The statements marked `prepared()` run as named prepared statements (planned once per connection). */
  readonly dbPreparedStatements: boolean;
  readonly tokenTtlSeconds: number;
  readonly idempotencyRetentionDays: number;
  readonly unblockRetryDelaysMs: number[];
  readonly webhookRetryDelaysMs: number[];
  /** How long a claimed delivery attempt is leased: a killed instance's events are due again after it. */
  readonly webhookLeaseSeconds: number;
  /** One delivery attempt's bound (DNS, connection, TLS and the receiver's answer); past it the outcome is `timeout`. */
  readonly webhookTimeoutMs: number;
  /** Delivery attempts of one partner in flight on this instance: a hanging receiver holds at most these slots. */
  readonly webhookPartnerMaxInFlight: number;
  /** Test and redeliver calls a minute per partner (CONTRACT section 7). */
  readonly webhookTestRateLimit: number;
  readonly dbPoolSize: number;
  /** Connections of the app pool kept open while idle (at most dbPoolSize). */
  readonly dbPoolMin: number;
  readonly serviceKeys: string | undefined;
  readonly oauth: { issuer?: string; audience?: string; jwksUri?: string };
  readonly jobsEnabled: boolean;
  /** SDN list folder (`sdn.csv`, `alt.csv`; unset: no screening) and the score that counts as a match. */
  readonly ofac: { listDir: string | undefined; matchThreshold: number };
  /** The care console (CONTRACT section 14): the bank's identity provider and the staff session. */
  readonly careConsole: CareConsoleEnv;
}

/** CARE_OAUTH_*: unset authorization and token URLs mean no provider (sandbox sign-in; production serves no /care). */
export interface CareConsoleEnv {
  readonly oauth: {
    readonly authorizationUrl: string;
    readonly tokenUrl: string;
    readonly clientId: string;
    readonly clientSecret: string | undefined;
    readonly userinfoUrl: string | undefined;
    readonly allowedGroup: string;
    /** The claim holding the staff member's groups or roles (default `groups`). */
    readonly groupClaim: string;
    readonly scope: string;
    /** The provider's issuer identifier: the ID token's `iss` must equal it. */
    readonly issuer: string;
    /** The provider's JWKS: the ID token's signature is verified against it. */
    readonly jwksUrl: string;
  } | null;
  readonly sessionIdleMinutes: number;
  /** Absolute lifetime of a signed-in session, however active (CONTRACT section 14, 2026-11-25). */
  readonly sessionMaxHours: number;
  /** Signs the session cookie (32+ characters); unset: a secret derived from SERVICE_KEYS (the same on every instance). */
  readonly sessionSecret: string | undefined;
}

export class EnvError extends Error {}

const PROJECT_ROOT = path.resolve(__dirname, '..', '..', ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..'] : []));

function int(name: string, raw: string | undefined, fallback: number, min = 0): number {
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() would also read 0x1195, 3e3 and 1.0.
  const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min) throw new EnvError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** The longest timeout PostgreSQL (lock_timeout, statement_timeout) and Node's timers take: 2^31 - 1 ms. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A duration in ms that becomes a PostgreSQL or Node timeout: refused at start beyond what they take (else every call would fail, or fire at once). */
function timeoutMs(name: string, raw: string | undefined, fallback: number, min = 0): number {
  const value = int(name, raw, fallback, min);
  if (value > MAX_TIMEOUT_MS) throw new EnvError(`${name} must be an integer from ${min} to ${MAX_TIMEOUT_MS} (ms), got "${raw}"`);
  return value;
}

/** A TCP port, up to 65535 (PORT may be 0: any free port, as the tests start the service). */
function portOf(name: string, raw: string | undefined, fallback: number, min = 1): number {
  const value = int(name, raw, fallback, min);
  if (value > 65535) throw new EnvError(`${name} must be a port (${min} to 65535), got "${raw}"`);
  return value;
}

/** "true" or "false"; the default when unset. Anything else (FALSE, yes, 0) is refused, not read as one or the other. */
function flag(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new EnvError(`${name} must be "true" or "false", got "${raw}"`);
}

/** pino's levels, and silent. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  if (!LOG_LEVELS.includes(raw)) throw new EnvError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

/** The service's external base URL (token issuer, RFC 8414 metadata, every docUrl), without a trailing slash; no user info, query or fragment. */
function publicUrl(raw: string | undefined, host: string, port: number): string {
  if (raw === undefined || raw === '') return `http://${host}:${port}`;
  // As written, not as the URL parser mends it (it trims spaces and reads `http:host` as `http://host`): the
  // text is what gets published. No `@` before the path, so no user info; a valid URL besides.
  if (!/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(raw) || !URL.canParse(raw)) {
    throw new EnvError(`PUBLIC_URL must be an http or https URL without user info, query or fragment, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function intList(name: string, raw: string | undefined, fallback: number[]): number[] {
  if (raw === undefined || raw === '') return fallback;
  const parts = raw.split(',').map((part) => part.trim());
  // An empty entry (`1000,,2000`) is a mistake, not a delay of 0 (which Number('') would make it).
  const values = parts.map((part) => (/^\d+$/.test(part) ? Number(part) : NaN));
  if (values.some((v) => !Number.isSafeInteger(v))) {
    throw new EnvError(`${name} must be a comma-separated list of non-negative integers, got "${raw}"`);
  }
  return values;
}

/** SERVICE.md: the card unblock is retried up to 3 times, all within 15 minutes of the fraud block's removal. */
export const UNBLOCK_RETRY_MAX_ENTRIES = 3;
export const UNBLOCK_RETRY_WINDOW_MS = 15 * 60 * 1000;

function unblockRetryDelays(raw: string | undefined): number[] {
  const delays = intList('UNBLOCK_RETRY_DELAYS_MS', raw, [60_000, 240_000, 540_000]);
  const total = delays.reduce((sum, delay) => sum + delay, 0);
  if (delays.length > UNBLOCK_RETRY_MAX_ENTRIES || total > UNBLOCK_RETRY_WINDOW_MS) {
    throw new EnvError(
      `UNBLOCK_RETRY_DELAYS_MS must list at most ${UNBLOCK_RETRY_MAX_ENTRIES} delays summing to at most ${UNBLOCK_RETRY_WINDOW_MS} ms ` +
        `(SERVICE.md: up to 3 retries, all within 15 minutes), got "${raw}" (${delays.length} entries, ${total} ms)`,
    );
  }
  return delays;
}

/** METRICS_PORT: a listener of its own, so never the port the API serves (CONTRACT section 12). */
function metricsPort(raw: string | undefined, apiPort: number): number | undefined {
  if (!raw) return undefined;
  const port = portOf('METRICS_PORT', raw, 0);
  if (port !== 0 && port === apiPort) throw new EnvError(`METRICS_PORT must differ from PORT (${apiPort}): the metrics have a listener of their own`);
  return port;
}

/**
 * DB_POOL_SIZE connections at most; DB_POOL_MIN of them (all, by default: a fixed-size pool once
 * warm) stay open while idle, so a burst after a quiet spell does not open them while it waits.
 */
function poolSize(source: NodeJS.ProcessEnv): Pick<Env, 'dbPoolSize' | 'dbPoolMin'> {
  const dbPoolSize = int('DB_POOL_SIZE', source.DB_POOL_SIZE, 20, 1);
  const dbPoolMin = int('DB_POOL_MIN', source.DB_POOL_MIN, dbPoolSize, 0);
  if (dbPoolMin > dbPoolSize) throw new EnvError(`DB_POOL_MIN must be at most DB_POOL_SIZE (${dbPoolSize}), got "${source.DB_POOL_MIN}"`);
  return { dbPoolSize, dbPoolMin };
}

/** Margin of a lease over an attempt's timeout: the attempt's recording happens after it ends. */
const LEASE_MARGIN_MS = 5_000;

function webhookDelivery(source: NodeJS.ProcessEnv): Pick<Env, 'webhookLeaseSeconds' | 'webhookTimeoutMs' | 'webhookPartnerMaxInFlight'> {
  const webhookTimeoutMs = timeoutMs('WEBHOOK_TIMEOUT_MS', source.WEBHOOK_TIMEOUT_MS, 10_000, 100);
  const webhookLeaseSeconds = int('WEBHOOK_LEASE_SECONDS', source.WEBHOOK_LEASE_SECONDS, 30, 15);
  // A lease that ends while its attempt may still run would let a second instance send the same attempt.
  if (webhookLeaseSeconds * 1000 < webhookTimeoutMs + LEASE_MARGIN_MS) {
    throw new EnvError(
      `WEBHOOK_LEASE_SECONDS must be at least ${LEASE_MARGIN_MS / 1000} s more than WEBHOOK_TIMEOUT_MS, got ${webhookLeaseSeconds} s and ${webhookTimeoutMs} ms`,
    );
  }
  return {
    webhookTimeoutMs,
    webhookLeaseSeconds,
    webhookPartnerMaxInFlight: int('WEBHOOK_PARTNER_MAX_IN_FLIGHT', source.WEBHOOK_PARTNER_MAX_IN_FLIGHT, 64, 1),
  };
}

function fraction(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 1) throw new EnvError(`${name} must be a number in (0, 1], got "${raw}"`);
  return value;
}

function schemaName(raw: string | undefined): string {
  const value = raw || 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(value)) throw new EnvError(`DB_SCHEMA must match [a-z_][a-z0-9_]*, got "${value}"`);
  return value;
}

/**
 * A PostgreSQL URL pg can connect with; refused naming the variable and never echoing the value,
 * which holds the password (pg's own failure named neither: "Invalid URL", "getaddrinfo ENOTFOUND base").
 */
function databaseUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!URL.canParse(raw) || !['postgres:', 'postgresql:'].includes(new URL(raw).protocol)) {
    throw new EnvError('DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)');
  }
  return raw;
}

function databaseTlsOff(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'on') return false;
  if (raw === 'off') return true;
  throw new EnvError(`DATABASE_TLS must be "off" or "on", got "${raw}"`);
}

/** CONTRACT section 3 (2026-11-25): an external issuer needs its audience and its JWKS; its tokens then must carry client_id and typ at+jwt. */
function externalIssuer(source: NodeJS.ProcessEnv): Env['oauth'] {
  const oauth = { issuer: source.OAUTH_ISSUER || undefined, audience: source.OAUTH_AUDIENCE || undefined, jwksUri: source.OAUTH_JWKS_URI || undefined };
  if (oauth.issuer && (!oauth.audience || !oauth.jwksUri)) {
    throw new EnvError(`OAUTH_ISSUER needs ${[!oauth.audience && 'OAUTH_AUDIENCE', !oauth.jwksUri && 'OAUTH_JWKS_URI'].filter(Boolean).join(' and ')}`);
  }
  return oauth;
}

function trustProxy(raw: string | undefined): boolean | string {
  const value = (raw ?? '').trim();
  if (value === '' || /^(false|off)$/i.test(value)) return false;
  if (/^(true|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) {
    throw new EnvError(`TRUST_PROXY takes the proxies' addresses/CIDRs, not a hop count (Fastify trusts no proxy for a bare count), got "${raw}"`);
  }
  const proxies = value.split(',').map((part) => part.trim());
  if (proxies.some((part) => isIP(part.split('/')[0]) === 0)) {
    throw new EnvError(`TRUST_PROXY must be false, true or comma-separated proxy addresses/CIDRs, got "${raw}"`);
  }
  return proxies.join(',');
}

export function projectRoot(): string {
  return PROJECT_ROOT;
}

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const appMode = (source.APP_MODE ?? 'sandbox') as AppMode;
  if (appMode !== 'sandbox' && appMode !== 'production') {
    throw new EnvError(`APP_MODE must be "sandbox" or "production", got "${source.APP_MODE}"`);
  }
  const host = source.HOST || '127.0.0.1';
  const port = portOf('PORT', source.PORT, 3000, 0);
  const dataDir = path.resolve(source.DATA_DIR || path.join(PROJECT_ROOT, '.data'));
  const dbStatementTimeoutMs = timeoutMs('DB_STATEMENT_TIMEOUT_MS', source.DB_STATEMENT_TIMEOUT_MS, 15_000, 1);
  return {
    appMode,
    host,
    port,
    publicUrl: publicUrl(source.PUBLIC_URL, host, port),
    databaseUrl: databaseUrl(source.DATABASE_URL),
    dbSchema: schemaName(source.DB_SCHEMA),
    embeddedPg: {
      dir: path.resolve(source.EMBEDDED_PG_DIR || path.join(dataDir, 'pg')),
      port: portOf('EMBEDDED_PG_PORT', source.EMBEDDED_PG_PORT, 54329),
    },
    dataDir,
    serviceConfigPath: path.resolve(source.SERVICE_CONFIG || path.join(PROJECT_ROOT, 'config', 'sandbox.json')),
    logLevel: logLevel(source.LOG_LEVEL),
    lockWaitMs: timeoutMs('LOCK_WAIT_MS', source.LOCK_WAIT_MS, 5000),
    partnerMaxInFlight: int('PARTNER_MAX_IN_FLIGHT', source.PARTNER_MAX_IN_FLIGHT, 16, 1),
    tokenRateLimit: int('TOKEN_RATE_LIMIT', source.TOKEN_RATE_LIMIT, 60, 1),
    trustProxy: trustProxy(source.TRUST_PROXY),
    scryptQueueLimit: int('SCRYPT_QUEUE_LIMIT', source.SCRYPT_QUEUE_LIMIT, 32),
    requestTimeoutMs: timeoutMs('REQUEST_TIMEOUT_MS', source.REQUEST_TIMEOUT_MS, 30_000, 1),
    metricsPort: metricsPort(source.METRICS_PORT, port),
    metricsHost: source.METRICS_HOST || '127.0.0.1',
    databaseTlsOff: databaseTlsOff(source.DATABASE_TLS),
    docsInProduction: flag('DOCS_IN_PRODUCTION', source.DOCS_IN_PRODUCTION, false),
    dbStatementTimeoutMs,
    // Past the server's own statement_timeout, so a slow statement is still ended by the server first.
    dbQueryTimeoutMs: timeoutMs('DB_QUERY_TIMEOUT_MS', source.DB_QUERY_TIMEOUT_MS, Math.min(dbStatementTimeoutMs + 5_000, MAX_TIMEOUT_MS), 1),
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', source.TOKEN_TTL_SECONDS, 3600, 1),
    idempotencyRetentionDays: int('IDEMPOTENCY_RETENTION_DAYS', source.IDEMPOTENCY_RETENTION_DAYS, 7, 1),
    // Three retries spread inside SERVICE.md's 15-minute window (1 + 4 + 9 minutes).
    unblockRetryDelaysMs: unblockRetryDelays(source.UNBLOCK_RETRY_DELAYS_MS),
    // Exponential backoff reaching past 24 hours in total (CONTRACT section 7; production refuses a
    // shorter schedule, app-config.ts; the sandbox and the tests may shorten it).
    webhookRetryDelaysMs: intList(
      'WEBHOOK_RETRY_DELAYS_MS',
      source.WEBHOOK_RETRY_DELAYS_MS,
      [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000, 43_200_000],
    ),
    ...webhookDelivery(source),
    webhookTestRateLimit: int('WEBHOOK_TEST_RATE_LIMIT', source.WEBHOOK_TEST_RATE_LIMIT, 60, 1),
    ...poolSize(source),
    serviceKeys: source.SERVICE_KEYS || undefined,
    oauth: externalIssuer(source),
    jobsEnabled: flag('JOBS_ENABLED', source.JOBS_ENABLED, true),
    dbPreparedStatements: flag('DB_PREPARED_STATEMENTS', source.DB_PREPARED_STATEMENTS, true),
    ofac: {
      listDir: source.OFAC_LIST_DIR ? path.resolve(source.OFAC_LIST_DIR) : undefined,
      matchThreshold: fraction('OFAC_MATCH_THRESHOLD', source.OFAC_MATCH_THRESHOLD, 0.92),
    },
    careConsole: careConsoleEnv(source),
  };
}

function careConsoleEnv(source: NodeJS.ProcessEnv): CareConsoleEnv {
  const authorizationUrl = source.CARE_OAUTH_AUTHORIZATION_URL || undefined;
  const tokenUrl = source.CARE_OAUTH_TOKEN_URL || undefined;
  const secret = source.CARE_SESSION_SECRET || undefined;
  if (secret !== undefined && secret.length < 32) throw new EnvError('CARE_SESSION_SECRET must be at least 32 characters');
  let oauth: CareConsoleEnv['oauth'] = null;
  if (authorizationUrl || tokenUrl) {
    const missing = [
      'CARE_OAUTH_AUTHORIZATION_URL',
      'CARE_OAUTH_TOKEN_URL',
      'CARE_OAUTH_CLIENT_ID',
      'CARE_OAUTH_ALLOWED_GROUP',
      'CARE_OAUTH_ISSUER',
      'CARE_OAUTH_JWKS_URL',
    ].filter((name) => !source[name]);
    if (missing.length > 0) throw new EnvError(`the care console's identity provider needs ${missing.join(', ')}`);
    const scope = source.CARE_OAUTH_SCOPE || 'openid email profile';
    // The ID token (and its nonce) is what proves who signed in: OpenID Connect, not bare OAuth.
    if (!scope.split(' ').includes('openid')) throw new EnvError(`CARE_OAUTH_SCOPE must include openid, got "${scope}"`);
    oauth = {
      authorizationUrl: authorizationUrl as string,
      tokenUrl: tokenUrl as string,
      clientId: source.CARE_OAUTH_CLIENT_ID as string,
      clientSecret: source.CARE_OAUTH_CLIENT_SECRET || undefined,
      userinfoUrl: source.CARE_OAUTH_USERINFO_URL || undefined,
      allowedGroup: source.CARE_OAUTH_ALLOWED_GROUP as string,
      groupClaim: source.CARE_OAUTH_GROUP_CLAIM || 'groups',
      scope,
      issuer: source.CARE_OAUTH_ISSUER as string,
      jwksUrl: source.CARE_OAUTH_JWKS_URL as string,
    };
  }
  return {
    oauth,
    sessionIdleMinutes: int('CARE_SESSION_IDLE_MINUTES', source.CARE_SESSION_IDLE_MINUTES, 15, 1),
    sessionMaxHours: int('CARE_SESSION_MAX_HOURS', source.CARE_SESSION_MAX_HOURS, 8, 1),
    sessionSecret: secret,
  };
}
