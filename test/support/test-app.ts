import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, JWK } from 'jose';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { closeApp, createApp, serve } from '../../src/app.factory';
import { AppConfig } from '../../src/config/app-config';
import { captureLogs } from '../../src/infrastructure/logging/logging';
import { EnrollmentClient } from '../../client/enrollment-client';
import { createEnrollmentSdk, EnrollmentSdk } from '../../client/sdk';
import { schemaCheck } from './schema-check';

/** Partners of the test configuration. Secrets are sandbox values. */
export const PARTNERS = {
  acme: { clientId: 'acme', clientSecret: 'acme-test-secret' },
  secure: { clientId: 'secure', clientSecret: 'secure-test-secret' },
  globex: { clientId: 'globex', clientSecret: 'globex-test-secret' },
  hashed: { clientId: 'hashed', clientSecret: 'hashed-test-secret' },
  care: { clientId: 'care', clientSecret: 'care-test-secret' },
} as const;
export type PartnerName = keyof typeof PARTNERS;

/** A partner in the middle of a rotation: both secrets (scrypt hashes in the config) are accepted. */
export const ROTATING_PARTNER = { clientId: 'rotating', clientSecrets: ['rotation-old-secret', 'rotation-new-secret'] } as const;

// scrypt PHC of "hashed-test-secret" (ln=10, r=8, p=1), computed once for the fixture.
const HASHED_SECRET_PHC = '$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA==$Q6qkC3sWERIrb5yyoOfOj7Ab5Ilz5bBt0GjjqV2qObw=';
// scrypt PHCs of ROTATING_PARTNER's two secrets (ln=10, r=8, p=1).
const ROTATING_SECRET_PHCS = [
  '$scrypt$ln=10,r=8,p=1$cm90YXRpb24tc2FsdC0wMQ==$74xksKYHPXsk01T1Jqy8YAo9WN7p0NG+IaZh5BUzkhQ=',
  '$scrypt$ln=10,r=8,p=1$cm90YXRpb24tc2FsdC0wMQ==$5uG/X3uPUPgE7xMHwXfghfHpIzY6Ewm9zOXP2U1c960=',
];

export interface TestServiceConfigOptions {
  /** Program overrides/additions, merged by programCode. */
  programs?: Array<Record<string, unknown>>;
  webhookUrl?: string;
  webhookSecret?: string;
  /** Partners added to the standard ones (e.g. a care client of fewer programs). */
  extraPartners?: Array<Record<string, unknown>>;
  /** The programs of standard partners, in place of their usual ones (a program taken out of a partner's configuration). */
  partnerPrograms?: Record<string, string[]>;
}

export interface EncryptionPartnerKeys {
  publicJwk: JWK;
  privateJwk: JWK;
}

let partnerKeys: Promise<EncryptionPartnerKeys> | undefined;

/** The `secure` partner's P-256 key pair (the partner keeps the private half). */
export function encryptionPartnerKeys(): Promise<EncryptionPartnerKeys> {
  partnerKeys ??= (async () => {
    const pair = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    return { publicJwk: await exportJWK(pair.publicKey), privateJwk: await exportJWK(pair.privateKey) };
  })();
  return partnerKeys;
}

export const BASE_PROGRAMS = [
  { programCode: 'sandbox', currencies: ['USD'], kycRequired: true, kybEnabled: true, matriculaEnabled: true },
  { programCode: 'lite', currencies: ['USD', 'MXN'], kycRequired: false, kybEnabled: false, matriculaEnabled: false },
  { programCode: 'other', currencies: ['USD'], kycRequired: true, kybEnabled: true, matriculaEnabled: true },
];

export async function writeTestServiceConfig(file: string, options: TestServiceConfigOptions = {}): Promise<void> {
  const programs = new Map(BASE_PROGRAMS.map((p) => [p.programCode, { ...p } as Record<string, unknown>]));
  for (const program of options.programs ?? []) {
    programs.set(String(program.programCode), { ...(programs.get(String(program.programCode)) ?? {}), ...program });
  }
  const webhook = options.webhookUrl ? { url: options.webhookUrl, secret: options.webhookSecret ?? `whsec_${randomBytes(24).toString('base64')}` } : undefined;
  const { publicJwk } = await encryptionPartnerKeys();
  const allPrograms = [...programs.keys()];
  const partnerScopes = ['enrollments', 'users', 'business_profiles', 'identity', 'webhooks'];
  const config = {
    programs: [...programs.values()],
    partners: [
      { partnerId: 'acme', ...PARTNERS.acme, programs: allPrograms.filter((p) => p !== 'other'), scopes: partnerScopes, ...(webhook ? { webhook } : {}) },
      {
        partnerId: 'secure',
        ...PARTNERS.secure,
        programs: allPrograms.filter((p) => p !== 'other'),
        scopes: partnerScopes,
        encryption: { publicKeyJwk: publicJwk },
      },
      { partnerId: 'globex', ...PARTNERS.globex, programs: ['other', 'sandbox'], scopes: partnerScopes },
      { partnerId: 'hashed', clientId: PARTNERS.hashed.clientId, clientSecretHash: HASHED_SECRET_PHC, programs: ['sandbox'], scopes: ['enrollments'] },
      { partnerId: 'care', ...PARTNERS.care, programs: allPrograms, scopes: ['care'] },
      { partnerId: 'rotating', clientId: ROTATING_PARTNER.clientId, clientSecretHashes: ROTATING_SECRET_PHCS, programs: ['sandbox'], scopes: ['enrollments'] },
      ...(options.extraPartners ?? []),
    ].map((partner) => {
      const programs = options.partnerPrograms?.[partner.partnerId as string];
      return programs ? { ...partner, programs } : partner;
    }),
  };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
}

export interface TestApp {
  app: NestFastifyApplication;
  baseUrl: string;
  schema: string;
  config: AppConfig;
  client(partner?: PartnerName, options?: { scope?: string; fastRetries?: boolean }): EnrollmentClient;
  /** The typed SDK a partner installs (client/README.md), with fast retries. */
  sdk(partner?: PartnerName): EnrollmentSdk;
  /** A direct connection to the file's schema, for assertions on stored rows only. */
  db(): Promise<Client>;
  close(): Promise<void>;
}

export interface StartOptions extends TestServiceConfigOptions {
  /** Reuse a schema (second instance against the same database). */
  schema?: string;
  env?: Record<string, string>;
  /** Receives the app's log lines (JSON text, one per entry) instead of stdout; set LOG_LEVEL in `env` to have any. */
  logLines?: string[];
}

/** A fixed public URL, so that several instances of one test accept each other's tokens. */
export const TEST_PUBLIC_URL = 'http://enrollment.test';

/**
 * The account an enrollment's requestId opened, read from the app's schema (a test's own connection,
 * closed after): for a call that was interrupted before it answered with the account.
 */
export async function accountIdOfRequest(app: { db(): Promise<Client> }, requestId: string): Promise<string> {
  const db = await app.db();
  try {
    const row = (await db.query<{ id: string }>('select id from accounts where request_id = $1', [requestId])).rows[0];
    if (!row) throw new Error(`no account for requestId ${requestId}`);
    return row.id;
  } finally {
    await db.end();
  }
}

export function uniqueSchema(label: string): string {
  return `t_${label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 30)}_${randomBytes(3).toString('hex')}`;
}

/** Boots the real application on a loopback port against the run's PostgreSQL, in its own schema. */
export async function startTestApp(label: string, options: StartOptions = {}): Promise<TestApp> {
  const runDir = process.env.TEST_RUN_DIR as string;
  const schema = options.schema ?? uniqueSchema(label);
  const configFile = path.join(runDir, `${schema}-${randomBytes(3).toString('hex')}.json`);
  await writeTestServiceConfig(configFile, options);
  const env: NodeJS.ProcessEnv = {
    APP_MODE: 'sandbox',
    DATABASE_URL: process.env.DATABASE_URL,
    DB_SCHEMA: schema,
    DATA_DIR: runDir,
    SERVICE_CONFIG: configFile,
    PUBLIC_URL: TEST_PUBLIC_URL,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    LOCK_WAIT_MS: '5000',
    // Above every concurrency spec's own concurrency (CONTRACT section 15); the cap's spec sets it low.
    PARTNER_MAX_IN_FLIGHT: '1000',
    TOKEN_RATE_LIMIT: '1000000',
    WEBHOOK_TEST_RATE_LIMIT: '1000000',
    DB_POOL_SIZE: '10',
    ...(options.env ?? {}),
  };
  const config = AppConfig.load(env);
  const lines = options.logLines;
  // The root logger takes its destination when the app is created.
  if (lines) captureLogs({ write: (line: string) => void lines.push(line) });
  let app: NestFastifyApplication;
  try {
    app = await createApp(config);
  } finally {
    if (lines) captureLogs(undefined);
  }
  await serve(app, { host: '127.0.0.1', port: 0 });
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  schemaCheck.watch(baseUrl);
  const clients: EnrollmentClient[] = [];
  return {
    app,
    baseUrl,
    schema,
    config,
    client(partner = 'acme', clientOptions = {}) {
      const client = new EnrollmentClient({
        baseUrl,
        ...PARTNERS[partner],
        scope: clientOptions.scope,
        retry:
          clientOptions.fastRetries === false
            ? undefined
            : {
                ranges: [
                  [1, 5],
                  [5, 20],
                  [20, 50],
                ],
              },
      });
      clients.push(client);
      return client;
    },
    sdk(partner = 'acme') {
      return createEnrollmentSdk({
        baseUrl,
        ...PARTNERS[partner],
        retry: {
          ranges: [
            [1, 5],
            [5, 20],
            [20, 50],
          ],
        },
      });
    },
    async db() {
      // The app's own database (a spec may give it a server of its own: database-control.ts).
      const client = new Client({ connectionString: env.DATABASE_URL, options: `-c search_path=${schema}` });
      await client.connect();
      return client;
    },
    async close() {
      await closeApp(app);
    },
  };
}

/** A non-success detail as the service answers it: with its link to the error page (CONTRACT section 11). */
export function linked<D extends { code: number; subCode: number }>(detail: D): D & { docUrl: string } {
  return { ...detail, docUrl: `${TEST_PUBLIC_URL}/docs/errors#${detail.code}-${detail.subCode}` };
}
