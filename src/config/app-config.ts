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
      const missing = [...productionGaps(env, source), ...careConsoleHttpsGaps(source)];
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
  return missing;
}

/** CONTRACT section 12 (2026-11-25): the care console speaks to its identity provider over https only. */
function careConsoleHttpsGaps(source: NodeJS.ProcessEnv): string[] {
  return Object.keys(source)
    .filter((name) => name === 'CARE_OAUTH_ISSUER' || /^CARE_OAUTH_[A-Z0-9_]+_URL$/.test(name))
    .sort()
    .filter((name) => source[name] && !isHttps(source[name] as string))
    .map((name) => `${name} must be an https URL`);
}

function isHttps(value: string): boolean {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}
