import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { AppConfig } from './config/app-config';
import { KeyStore } from './infrastructure/crypto/key-store';
import { tracingStarted } from './infrastructure/telemetry/telemetry-switch';
import { OfacScreeningService } from './modules/screening/ofac-screening.service';

/**
 * What the one start-up line says (CONTRACT section 16): enough for an operator to see which
 * configuration a process runs, and nothing secret. Identifiers only: program codes, partner ids,
 * key ids (published in the JWKS or written in ciphertext prefixes anyway), the database's host,
 * port, name and schema (never the URL: it may hold a user and password), the listeners' addresses.
 */
export interface StartupSummary {
  mode: string;
  programs: string[];
  partners: { count: number; ids: string[] };
  listeners: { api: string; metrics: string };
  publicUrl: string;
  database: string;
  keys: { signing: string[]; encryption: string[]; dataKey: string };
  ofac: { entries: number } | 'off';
  tracing: 'on' | 'off';
  careConsole: string;
}

export function startupSummary(app: NestFastifyApplication, config: AppConfig, metricsServer: Server | undefined, embeddedDb: boolean): StartupSummary {
  const keys = app.get(KeyStore).material;
  const list = app.get(OfacScreeningService).loadedList();
  const partners = config.service.partners.map((partner) => partner.partnerId);
  return {
    mode: config.env.appMode,
    programs: [...config.service.programs.keys()],
    partners: { count: partners.length, ids: partners },
    listeners: {
      api: address(app.getHttpServer()),
      // Sandbox serves /metrics on the API port; production on METRICS_PORT only, or not at all.
      metrics: metricsServer ? address(metricsServer) : config.isProduction ? 'off (METRICS_PORT unset)' : 'the API port (/metrics)',
    },
    publicUrl: config.env.publicUrl,
    database: `${databaseAddress(config.env.databaseUrl)} schema ${config.env.dbSchema}${embeddedDb ? ' (embedded)' : ''}`,
    keys: {
      signing: kids([keys.signing, ...(keys.previousSigning ?? [])]),
      encryption: kids([keys.encryption, ...(keys.previousEncryption ?? [])]),
      dataKey: keys.currentDataKeyId,
    },
    ofac: list ? { entries: list.entries } : 'off',
    tracing: tracingStarted() ? 'on' : 'off',
    careConsole: careConsole(config),
  };
}

/** How /care is served; production without a provider says why it is not (its 404 page names no configuration). */
function careConsole(config: AppConfig): string {
  if (config.env.careConsole.oauth !== null) return 'identity provider';
  return config.isSandbox ? 'sandbox sign-in' : 'off (no CARE_OAUTH_* identity provider)';
}

function kids(jwks: ReadonlyArray<{ kid?: string }>): string[] {
  return jwks.map((jwk) => jwk.kid ?? '(no kid)');
}

function address(server: { address(): AddressInfo | string | null }): string {
  const bound = server.address();
  if (!bound) return 'not listening';
  if (typeof bound === 'string') return bound;
  return bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`;
}

/** `host:port/database` of a PostgreSQL URL: no user, no password, no query (it may carry a password too). */
export function databaseAddress(url: string | undefined): string {
  if (!url) return 'none';
  try {
    const parsed = new URL(url);
    // A socket directory given as ?host=/path (libpq's form) when the URL names no host.
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    return `${host}:${parsed.port || '5432'}/${decodeURIComponent(parsed.pathname.replace(/^\//, ''))}`;
  } catch {
    return 'unparsable DATABASE_URL';
  }
}
