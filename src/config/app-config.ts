import { Env, loadEnv } from './env';
import { loadServiceConfig, ServiceConfig, ServiceConfigError } from './service-config';

/** The validated configuration: environment plus the programs and partners of SERVICE_CONFIG. */
export class AppConfig {
  constructor(
    readonly env: Env,
    readonly service: ServiceConfig,
  ) {}

  static load(source: NodeJS.ProcessEnv = process.env): AppConfig {
    const env = loadEnv(source);
    const production = env.appMode === 'production';
    if (production) {
      const missing = productionGaps(env, source);
      if (missing.length > 0) throw new ServiceConfigError(`APP_MODE=production refuses to start: ${missing.join('; ')}`);
    }
    return new AppConfig(env, loadServiceConfig(env.serviceConfigPath, source, { production }));
  }

  get isProduction(): boolean {
    return this.env.appMode === 'production';
  }

  get isSandbox(): boolean {
    return this.env.appMode === 'sandbox';
  }
}

/** CONTRACT section 7: webhooks are retried with backoff for at least 24 hours. */
export const WEBHOOK_RETRY_SPAN_MS = 24 * 60 * 60 * 1000;

/**
 * CONTRACT section 12: what production needs before it serves, all named in one line. Keys are
 * checked when they load (SERVICE_KEYS), literal secrets when SERVICE_CONFIG is parsed.
 */
function productionGaps(env: Env, source: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  if (!source.SERVICE_CONFIG) missing.push('SERVICE_CONFIG is not set (the shipped sandbox configuration is refused)');
  if (!source.SERVICE_KEYS) missing.push('SERVICE_KEYS is not set (npm run --silent keys:generate prints one)');
  if (!env.databaseUrl) missing.push('DATABASE_URL is not set (the embedded PostgreSQL is for the sandbox)');
  if (!source.PUBLIC_URL || !env.publicUrl.startsWith('https://')) missing.push('PUBLIC_URL must be an https URL');
  if (!env.ofac.listDir) missing.push('OFAC_LIST_DIR is not set (the SDN list enrollments are screened against)');
  const webhookSpanMs = env.webhookRetryDelaysMs.reduce((sum, delay) => sum + delay, 0);
  if (webhookSpanMs < WEBHOOK_RETRY_SPAN_MS) {
    missing.push(
      `WEBHOOK_RETRY_DELAYS_MS must span at least ${WEBHOOK_RETRY_SPAN_MS} ms (CONTRACT section 7: retries for at least 24 hours), got ${webhookSpanMs} ms`,
    );
  }
  const tls = databaseTlsGap(env);
  if (tls) missing.push(tls);
  // CONTRACT section 12 (2026-11-25): identity providers' URLs over TLS only.
  const urls = Object.keys(source)
    .filter((name) => ['OAUTH_ISSUER', 'OAUTH_JWKS_URI', 'CARE_OAUTH_ISSUER'].includes(name) || /^CARE_OAUTH_\w+_URL$/.test(name))
    .sort();
  for (const name of urls) {
    const url = source[name];
    if (url && !url.startsWith('https://')) missing.push(`${name} must be an https URL`);
  }
  return missing;
}

/**
 * CONTRACT section 12: production talks to its database over TLS unless DATABASE_TLS=off says it
 * does not; the refusal, or undefined. For the service's start and the migration tool alike.
 */
export function databaseTlsGap(env: Env): string | undefined {
  if (!env.databaseUrl || env.databaseTlsOff || usesTls(env.databaseUrl)) return undefined;
  return 'DATABASE_URL must use TLS (sslmode=require, verify-ca or verify-full), or set DATABASE_TLS=off to say it is not';
}

/**
 * Whether a PostgreSQL connection string makes the driver use TLS, by the rule of pg's own parser of
 * DATABASE_URL (pg-connection-string 2.x; `app-config.spec.ts` holds the two to the same answers):
 * a parameter given twice counts as its last, `ssl=true|1` or any `sslmode`, `sslcert`, `sslkey`,
 * `sslrootcert` (or `sslnegotiation=direct`) turns TLS on, `ssl=0` and `sslmode=disable` off. Not
 * that parser itself: it warns on stderr about sslmode aliases as it parses, before the one-line refusal.
 */
export function usesTls(databaseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false;
  }
  const params = Object.fromEntries(url.searchParams);
  let ssl: unknown = params.ssl === 'true' || params.ssl === '1' ? true : params.ssl === '0' ? false : params.ssl;
  if (params.sslcert || params.sslkey || params.sslrootcert || params.sslmode) ssl = {};
  if (params.sslnegotiation === 'direct' && ssl === undefined) ssl = true;
  if (params.sslmode === 'disable') ssl = false;
  return Boolean(ssl);
}
