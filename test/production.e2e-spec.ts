import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateKeyMaterial } from '../src/infrastructure/crypto/key-store';
import { Metrics } from '../src/infrastructure/metrics/metrics';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { BASE_PROGRAMS, PARTNERS, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { expectTooManyTokenRequests, tokenRequest } from './support/token-requests';
import { waitUntil } from './support/wait';

const ROOT = path.resolve(__dirname, '..');
const ENROLL = '/v1/programs/sandbox/enrollments';
const OFAC_FIXTURE = path.join(__dirname, 'fixtures', 'ofac');

/** Starts `src/main.ts` (what `npm start` runs, unbuilt) and returns how it ended. */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.spec.json'), APP_MODE: 'production', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** A production SERVICE_CONFIG: every secret an env: reference. */
function writeProductionConfig(file: string, literalSecret = false): void {
  const programs = BASE_PROGRAMS.map((program) => program.programCode);
  const scopes = ['enrollments', 'users', 'business_profiles', 'identity', 'webhooks'];
  fs.writeFileSync(
    file,
    JSON.stringify({
      programs: BASE_PROGRAMS,
      partners: [
        { partnerId: 'acme', clientId: 'acme', clientSecret: literalSecret ? 'plain-secret' : 'env:PROD_ACME_SECRET', programs, scopes },
        { partnerId: 'care', clientId: 'care', clientSecret: 'env:PROD_CARE_SECRET', programs, scopes: ['care'] },
      ],
    }),
  );
}

/** The real app in production mode on a loopback port (the test app's TOKEN_RATE_LIMIT unless `env` sets it). */
async function startProductionApp(label: string, env: Record<string, string> = {}, logLines?: string[]): Promise<TestApp> {
  const config = path.join(process.env.TEST_RUN_DIR as string, `${label}.json`);
  writeProductionConfig(config);
  return startTestApp(label, {
    env: {
      APP_MODE: 'production',
      SERVICE_CONFIG: config,
      SERVICE_KEYS: JSON.stringify(await generateKeyMaterial()),
      PUBLIC_URL: 'https://enrollment.test',
      OFAC_LIST_DIR: OFAC_FIXTURE,
      // The embedded test database has no TLS: said explicitly, as production requires.
      DATABASE_TLS: 'off',
      PROD_ACME_SECRET: PARTNERS.acme.clientSecret,
      PROD_CARE_SECRET: PARTNERS.care.clientSecret,
      ...env,
    },
    ...(logLines ? { logLines } : {}),
  });
}

/** CONTRACT section 12: APP_MODE=production is safe by default. */
describe('Production mode (e2e)', () => {
  const runDir = () => process.env.TEST_RUN_DIR as string;

  describe('start refusal: one line naming what is missing', () => {
    it('with nothing configured, every gap is named and the process exits 1', async () => {
      const { code, stderr } = await start({});
      expect(code).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^enrollment-service failed to start: APP_MODE=production refuses to start: /);
      for (const name of ['SERVICE_CONFIG', 'SERVICE_KEYS', 'DATABASE_URL', 'PUBLIC_URL must be an https URL', 'OFAC_LIST_DIR'])
        expect(lines[0]).toContain(name);
    });

    it('an http PUBLIC_URL is refused, and a literal secret in SERVICE_CONFIG', async () => {
      const config = path.join(runDir(), 'production-literal.json');
      writeProductionConfig(config, true);
      const base = {
        SERVICE_CONFIG: config,
        SERVICE_KEYS: JSON.stringify(await generateKeyMaterial()),
        DATABASE_URL: process.env.DATABASE_URL as string,
        DATABASE_TLS: 'off',
        OFAC_LIST_DIR: OFAC_FIXTURE,
        PROD_CARE_SECRET: 'x',
      };
      const http = await start({ ...base, PUBLIC_URL: 'http://enrollment.test' });
      expect(http.code).toBe(1);
      expect(http.stderr.trim()).toBe('enrollment-service failed to start: APP_MODE=production refuses to start: PUBLIC_URL must be an https URL');
      const literal = await start({ ...base, PUBLIC_URL: 'https://enrollment.test' });
      expect(literal.code).toBe(1);
      expect(literal.stderr).toMatch(/clientSecret: APP_MODE=production refuses literal secrets/);
      expect(literal.stderr.trim().split('\n')).toHaveLength(1);
    });

    it("(2026-11-25) the care console's identity provider over http is refused, naming each variable and saying https", async () => {
      const config = path.join(runDir(), 'production-care-http.json');
      writeProductionConfig(config);
      const { code, stderr } = await start({
        SERVICE_CONFIG: config,
        SERVICE_KEYS: JSON.stringify(await generateKeyMaterial()),
        DATABASE_URL: process.env.DATABASE_URL as string,
        OFAC_LIST_DIR: OFAC_FIXTURE,
        PUBLIC_URL: 'https://enrollment.test',
        PROD_ACME_SECRET: 'x',
        PROD_CARE_SECRET: 'x',
        CARE_OAUTH_AUTHORIZATION_URL: 'http://idp.bank.test/authorize',
        CARE_OAUTH_TOKEN_URL: 'https://idp.bank.test/token',
        CARE_OAUTH_USERINFO_URL: 'http://idp.bank.test/userinfo',
        CARE_OAUTH_JWKS_URL: 'http://idp.bank.test/jwks',
        CARE_OAUTH_ISSUER: 'http://idp.bank.test',
        CARE_OAUTH_CLIENT_ID: 'care-console',
        CARE_OAUTH_ALLOWED_GROUP: 'care-agents',
      });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      for (const name of ['CARE_OAUTH_AUTHORIZATION_URL', 'CARE_OAUTH_ISSUER', 'CARE_OAUTH_JWKS_URL', 'CARE_OAUTH_USERINFO_URL'])
        expect(stderr).toContain(`${name} must be an https URL`);
      expect(stderr).not.toContain('CARE_OAUTH_TOKEN_URL');
    });
  });

  describe('more refusals (2026-11-25)', () => {
    const valid = async () => {
      const config = path.join(runDir(), 'production-more.json');
      writeProductionConfig(config);
      return {
        SERVICE_CONFIG: config,
        SERVICE_KEYS: JSON.stringify(await generateKeyMaterial()),
        PUBLIC_URL: 'https://enrollment.test',
        OFAC_LIST_DIR: OFAC_FIXTURE,
        PROD_ACME_SECRET: 'x',
        PROD_CARE_SECRET: 'x',
      };
    };

    it('a DATABASE_URL without TLS unless DATABASE_TLS=off, and non-https identity provider URLs, each named in the one line', async () => {
      const { code, stderr } = await start({
        ...(await valid()),
        DATABASE_URL: 'postgres://app@db.internal:5432/enrollment?sslmode=disable',
        OAUTH_ISSUER: 'http://issuer.example',
        OAUTH_AUDIENCE: 'enrollment-api',
        OAUTH_JWKS_URI: 'http://issuer.example/jwks',
        CARE_OAUTH_ISSUER: 'http://idp.example',
        CARE_OAUTH_AUTHORIZATION_URL: 'http://idp.example/authorize',
        CARE_OAUTH_TOKEN_URL: 'https://idp.example/token',
        CARE_OAUTH_JWKS_URL: 'http://idp.example/jwks',
        CARE_OAUTH_CLIENT_ID: 'console',
        CARE_OAUTH_ALLOWED_GROUP: 'care',
      });
      expect(code).toBe(1);
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('DATABASE_URL must use TLS');
      expect(lines[0]).toContain('DATABASE_TLS=off');
      for (const name of ['OAUTH_ISSUER', 'OAUTH_JWKS_URI', 'CARE_OAUTH_ISSUER', 'CARE_OAUTH_AUTHORIZATION_URL', 'CARE_OAUTH_JWKS_URL']) {
        expect(lines[0]).toContain(`${name} must be an https URL`);
      }
      expect(lines[0]).not.toContain('CARE_OAUTH_TOKEN_URL');
    });

    it('SERVICE_KEYS that is not JSON, or whose signing key is not private, is refused in one line with no stack', async () => {
      const material = await generateKeyMaterial();
      const publicSigning = { ...material, signing: { ...material.signing, d: undefined } };
      for (const [keys, reason] of [
        ['{not json', 'SERVICE_KEYS is not valid JSON'],
        [JSON.stringify(publicSigning), 'signing is not a private ES256 (P-256) JWK'],
      ] as const) {
        const { code, stderr } = await start({
          ...(await valid()),
          SERVICE_KEYS: keys,
          // Never reached: the keys are read before the database is.
          DATABASE_URL: 'postgres://app@db.internal:5432/enrollment?sslmode=verify-full',
        });
        expect({ code, lines: stderr.trim().split('\n') }).toEqual({ code: 1, lines: [expect.stringContaining(reason)] });
        expect(stderr).toMatch(/^enrollment-service failed to start: /);
      }
    });

    it('a listen address that cannot be used is refused in one line naming HOST and PORT', async () => {
      const { code, stderr } = await start({
        ...(await valid()),
        DATABASE_URL: process.env.DATABASE_URL as string,
        DATABASE_TLS: 'off',
        DB_SCHEMA: uniqueSchema('prod-listen'),
        HOST: '999.1.1.1',
        PORT: '4999',
      });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^enrollment-service failed to start: cannot listen on 999\.1\.1\.1:4999 \(HOST and PORT\): /),
      ]);
    });

    it('an external issuer without OAUTH_AUDIENCE is refused', async () => {
      const { code, stderr } = await start({
        ...(await valid()),
        DATABASE_URL: 'postgres://app@db.internal:5432/enrollment?sslmode=verify-full',
        OAUTH_ISSUER: 'https://issuer.example',
        OAUTH_JWKS_URI: 'https://issuer.example/jwks',
      });
      expect(code).toBe(1);
      expect(stderr.trim()).toMatch(/OAUTH_ISSUER needs OAUTH_AUDIENCE$/);
    });

    it('a client secret hash weaker than the default scrypt cost (ln=14,r=8,p=1) is refused', async () => {
      const config = path.join(runDir(), 'production-weak-hash.json');
      const programs = BASE_PROGRAMS.map((program) => program.programCode);
      const weak = '$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA==$Q6qkC3sWERIrb5yyoOfOj7Ab5Ilz5bBt0GjjqV2qObw=';
      fs.writeFileSync(
        config,
        JSON.stringify({
          programs: BASE_PROGRAMS,
          partners: [{ partnerId: 'acme', clientId: 'acme', clientSecretHash: weak, programs, scopes: ['enrollments'] }],
        }),
      );
      const { code, stderr } = await start({
        ...(await valid()),
        SERVICE_CONFIG: config,
        DATABASE_URL: 'postgres://app@db.internal:5432/enrollment?sslmode=require',
      });
      expect(code).toBe(1);
      expect(stderr).toMatch(/clientSecretHash: APP_MODE=production refuses a scrypt cost below the default \(ln=14,r=8,p=1\)/);
      expect(stderr.trim().split('\n')).toHaveLength(1);
    });
  });

  describe('serving', () => {
    let app: TestApp;
    const logLines: string[] = [];

    beforeAll(async () => {
      // The card unblock's retries a moment apart, so the fraud block's removal can be followed to its end.
      app = await startProductionApp('production', { UNBLOCK_RETRY_DELAYS_MS: '100,100,100', LOG_LEVEL: 'info' }, logLines);
    });

    afterAll(async () => {
      await app.close();
    });

    it('without a KYC vendor, an enrollment of a kycRequired program is referred for manual review, never passed silently', async () => {
      const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build());
      expect(res.status).toBe(200);
      expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      expect(res.body.account).toMatchObject({ status: 'pending', kycPendingGate: 'manual', statusReason: 'underReview', accountCycleDay: expect.any(Number) });
      expect(res.body.paymentInstruments).toEqual([expect.objectContaining({ status: 'inactive' })]);

      const id = (res.body.account as { accountIdentifier: string }).accountIdentifier;
      const cleared = await app.client('care').post(`/v1/care/accounts/${id}/kycGate/clear`, {});
      expect(cleared.body.account).toMatchObject({ status: 'normal', kycPendingGate: 'none' });
      expect(cleared.body.paymentInstruments).toEqual([expect.objectContaining({ status: 'active' })]);
    });

    it('every answer carries Strict-Transport-Security behind its https PUBLIC_URL: API, errors, token, documents, health, URL and header refusals', async () => {
      const token = await app.client().accessToken();
      for (const [what, path, init] of [
        ['an API error', '/v1/errors', {}],
        ['a missing account', `${ENROLL}/accounts/00000000-0000-4000-8000-000000000000`, { headers: { authorization: `Bearer ${token}` } }],
        ['no route', '/v1/nothing-here', {}],
        ['a token refusal', '/oauth2/token', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }],
        ['a document', '/openapi.json', {}],
        ['health', '/health/live', {}],
        // Fastify's own URL error, answered before any hook, and Node's parser refusal, answered on the socket.
        ['an undecodable URL', '/v1/programs/%E0%A4%A/enrollments/accounts/x', {}],
        ['headers over 16 KiB', '/v1/errors', { headers: { 'x-pad': 'x'.repeat(17 * 1024) } }],
      ] as const) {
        const res = await fetch(`${app.baseUrl}${path}`, init as RequestInit);
        expect({ what, hsts: res.headers.get('strict-transport-security') }).toEqual({ what, hsts: 'max-age=31536000' });
      }
    });

    it('serves the OpenAPI documents but not Swagger UI (DOCS_IN_PRODUCTION is not set)', async () => {
      expect((await fetch(`${app.baseUrl}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${app.baseUrl}/docs`)).status).toBe(404);
      expect((await fetch(`${app.baseUrl}/docs/swagger-init.js`)).status).toBe(404);
    });

    it("the sandbox reset does not exist (404/404/0, as an unknown route), and the partner's data stays", async () => {
      const enrolled = await app.client().post(ENROLL, EnrollmentRequestFactory.build());
      const res = await app.client().delete('/v1/sandbox/programs/sandbox/data');
      expect({ status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ status: 404, detail: { code: 404, subCode: 0 } });
      const id = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
      expect((await app.client().get(`${ENROLL}/accounts/${id}`)).status).toBe(200);
    });

    it('a program without kycRequired completes normally', async () => {
      const res = await app.client().post('/v1/programs/lite/enrollments', EnrollmentRequestFactory.build());
      expect(res.body.account).toMatchObject({ status: 'normal', kycPendingGate: 'none' });
    });

    it('sandbox controls are accepted and ignored: magic last names, X-Sandbox-Fault', async () => {
      const magic = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } }));
      expect(magic.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
      expect(magic.body.account).toMatchObject({ kycPendingGate: 'manual', statusReason: 'underReview' });
      for (const fault of ['billCycle', 'unavailable', 'after:accountWritten']) {
        const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build(), { headers: { 'x-sandbox-fault': fault }, noRetry: true });
        expect({ fault, status: res.status, detail: res.body.responseDetails[0] }).toMatchObject({ fault, status: 200, detail: { code: 0, subCode: 0 } });
        expect(res.body.account).toMatchObject({ accountCycleDay: expect.any(Number) });
      }
    });

    it('sandboxUnblockFailures is accepted and ignored: the fraud block is removed and the card unblocked at the first attempt', async () => {
      const enrolled = await app.client().post('/v1/programs/lite/enrollments', EnrollmentRequestFactory.build());
      const id = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
      const care = app.client('care');
      expect((await care.post(`/v1/care/accounts/${id}/fraudBlock`, {})).status).toBe(200);
      // Any value, one the sandbox would refuse included: accepted and ignored, never an error (CONTRACT section 12).
      const removed = await care.delete(`/v1/care/accounts/${id}/fraudBlock`, { sandboxUnblockFailures: -1.5 });
      expect({ status: removed.status, detail: removed.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 0, subCode: 0 } });
      expect(removed.body.account).toMatchObject({ status: 'normal', statusReason: null });
      const cardStatus = async () => ((await care.get(`/v1/care/accounts/${id}`)).body.paymentInstruments as Array<{ status: string }>)[0]?.status;
      await waitUntil(async () => (await cardStatus()) !== 'blocked');
      expect(await cardStatus()).toBe('active');
    });

    it('/metrics is not on the partner port (404/404/0); the separate METRICS_PORT listener serves it', async () => {
      const onPartnerPort = await fetch(`${app.baseUrl}/metrics`);
      expect(onPartnerPort.status).toBe(404);
      expect(((await onPartnerPort.json()) as { responseDetails: unknown[] }).responseDetails[0]).toMatchObject({ code: 404, subCode: 0 });
      const server = await app.app.get(Metrics, { strict: false }).listenSeparately('127.0.0.1', 0);
      try {
        const { port } = server.address() as { port: number };
        const scraped = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'x-request-id': 'scrape-1' } });
        expect(scraped.status).toBe(200);
        expect(scraped.headers.get('x-request-id')).toBe('scrape-1');
        expect(await scraped.text()).toContain('http_requests_total');
        const elsewhere = await fetch(`http://127.0.0.1:${port}/v1/errors`);
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        // CONTRACT section 1: every response is logged with its X-Request-Id, this listener's too.
        const lineOf = (requestId: string) => logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.requestId === requestId);
        await waitUntil(async () => lineOf('scrape-1') !== undefined && lineOf(elsewhere.headers.get('x-request-id') as string) !== undefined, 5_000, 20);
        expect(lineOf('scrape-1')).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/metrics' }, res: { statusCode: 200 } });
        expect(lineOf(elsewhere.headers.get('x-request-id') as string)).toMatchObject({
          msg: 'request completed',
          req: { url: '/v1/errors' },
          res: { statusCode: 404 },
        });
        // A person's number pasted into its path is redacted there too (common/http/private-path.ts).
        const pasted = await fetch(`http://127.0.0.1:${port}/accounts/271-83-4629`, { headers: { 'x-request-id': 'pasted-1' } });
        expect(pasted.status).toBe(404);
        await waitUntil(async () => lineOf('pasted-1') !== undefined, 5_000, 20);
        expect(lineOf('pasted-1')).toMatchObject({ req: { url: '/accounts/[redacted]' } });
        expect(logLines.join('\n')).not.toContain('271-83-4629');
      } finally {
        server.close();
      }
    });

    it('without an identity provider the care console is not served, and the sandbox sign-in never (CONTRACT section 14)', async () => {
      for (const [method, route] of [
        ['GET', '/care'],
        ['GET', '/care/sign-in'],
        ['POST', '/care/sign-in'],
        ['GET', '/care/auth/login'],
        ['GET', '/care/auth/callback?code=x&state=y'],
        ['POST', '/care/sign-out'],
        ['GET', '/care/search?q=x'],
        ['POST', '/care/search'],
        ['GET', `/care/accounts/${randomUUID()}`],
        ['GET', `/care/accounts/${randomUUID()}/operations/close`],
        ['POST', `/care/accounts/${randomUUID()}/operations/close`],
        ['POST', `/care/accounts/${randomUUID()}/users/${randomUUID()}/reveal`],
        ['GET', '/care/assets/console.css'],
      ] as const) {
        const body = method === 'POST' ? new URLSearchParams({ clientId: PARTNERS.care.clientId, clientSecret: PARTNERS.care.clientSecret }) : undefined;
        const res = await fetch(`${app.baseUrl}${route}`, { method, body, redirect: 'manual' });
        expect({ method, route, status: res.status }).toEqual({ method, route, status: 404 });
        // A plain not-found: nothing about the configuration, no link or stylesheet that would 404 in turn.
        const page = await res.text();
        const leaks = [/clientSecret/, /CARE_OAUTH/, /identity provider/i, /<link\b/, /href="\/care/].filter((re) => re.test(page));
        expect({ method, route, leaks }).toEqual({ method, route, leaks: [] });
      }
      const home = await fetch(`${app.baseUrl}/care`);
      expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await home.text()).toContain('<h1>Not found</h1>');
    });

    it('a name on the SDN list is held for OFAC review (5/370)', async () => {
      const res = await app.client().post(ENROLL, EnrollmentRequestFactory.build({ encryptedUserData: { firstName: 'Ignatius', lastName: 'Thornwick' } }));
      expect(res.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
      expect(res.body.account).toMatchObject({ status: 'pending', statusReason: 'ofacReview' });
    });

    it("care's OFAC clearance does not pass KYC: the enrollment of a kycRequired program is then referred like any other (CONTRACT section 12)", async () => {
      const request = EnrollmentRequestFactory.build({ encryptedUserData: { firstName: 'Ignatius', lastName: 'Thornwick' } });
      const held = await app.client().post(ENROLL, request);
      expect(held.body.responseDetails[0]).toMatchObject({ code: 5, subCode: 370 });
      const id = (held.body.account as { accountIdentifier: string }).accountIdentifier;
      const cleared = await app.client('care').post(`/v1/care/accounts/${id}/ofacClear`, {});
      expect(cleared.status).toBe(200);
      // "Production never passes KYC silently": referred, as an enrollment of this program without a list match is.
      expect(cleared.body.account).toMatchObject({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' });
      expect((cleared.body.paymentInstruments as Array<{ status: string }>).map((card) => card.status)).toEqual(['inactive']);
      const retried = await app.client().post(ENROLL, request);
      expect(retried.body.account).toMatchObject({ status: 'pending', statusReason: 'underReview', kycPendingGate: 'manual' });
    });
  });

  describe('token rate limit', () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startProductionApp('production_rate', { TOKEN_RATE_LIMIT: '2' });
    });

    afterAll(async () => {
      await app.close();
    });

    it('TOKEN_RATE_LIMIT tokens a minute per client id, then 429/429/0 with Retry-After, RateLimit and RateLimit-Policy', async () => {
      const { clientId, clientSecret } = PARTNERS.acme;
      for (const remaining of [1, 0]) {
        const answer = await tokenRequest(app.baseUrl, clientId, clientSecret);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('ratelimit')).toBe(`"client";r=${remaining};t=60`);
        expect(answer.headers.get('ratelimit-policy')).toBe('"client";q=2;w=60, "client-address";q=2;w=60, "address";q=20;w=60');
      }
      expectTooManyTokenRequests(await tokenRequest(app.baseUrl, clientId, clientSecret));
      expect((await tokenRequest(app.baseUrl, PARTNERS.care.clientId, PARTNERS.care.clientSecret)).status).toBe(200);
    });
  });
});
