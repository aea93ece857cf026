import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { generateKeyMaterial } from '../src/infrastructure/crypto/key-store';
import { EnrollmentRequestFactory, uniqueSsn } from './support/enrollment-factory';
import { BASE_PROGRAMS, PARTNERS, startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { startMain } from './support/main-process';
import { waitUntil } from './support/wait';

const ENROLL = '/v1/programs/sandbox/enrollments';
const ACCOUNT_ROUTE = '/v1/programs/:programCode/enrollments/accounts/:accountIdentifier';

/** A port nothing listens on now (the metrics listener's, which the summary names). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts a TCP connection on the loopback `port` now. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket.destroy() !== undefined));
    socket.once('error', () => resolve(false));
  });
}

interface RequestLine {
  level: number;
  msg: string;
  requestId?: string;
  partnerId?: string;
  programCode?: string;
  req: { method: string; url: string; route?: string };
  res: { statusCode: number; code?: number; subCode?: number };
  responseTime: number;
}

/** CONTRACT section 16: the request line, the start-up summary and the clean-stop line. */
describe('Service log lines (e2e)', () => {
  describe('the request line', () => {
    let app: TestApp;
    const logLines: string[] = [];

    beforeAll(async () => {
      app = await startTestApp('service_logs', { env: { LOG_LEVEL: 'info', JOBS_ENABLED: 'false' }, logLines });
    });

    afterAll(async () => {
      await app?.close();
    });

    /** Every line, read as a request line's shape (the other lines' own fields are there too, as unknowns). */
    const parsed = () => logLines.map((line): Partial<RequestLine> & Record<string, unknown> => JSON.parse(line));
    const requestLine = (requestId: string): RequestLine => {
      const lines = parsed().filter(
        (l): l is RequestLine & Record<string, unknown> => l.requestId === requestId && (l.msg === 'request completed' || l.msg === 'request errored'),
      );
      expect(lines).toHaveLength(1);
      return lines[0];
    };

    it("carries the partner, the program, the route pattern, the status, the answer's code and subCode and the time; no personal data", async () => {
      const ssn = uniqueSsn();
      const first = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn, dateOfBirth: '1985-06-15' } } });
      // A header id beside the body's requestId: the body's is the request's one id (CONTRACT section 1).
      const completed = await app.client().post(ENROLL, first, { headers: { 'x-request-id': 'header-id-not-the-one' } });
      expect(completed.status).toBe(200);
      expect(completed.body.requestId).toBe(first.requestId);
      expect(JSON.stringify(requestLine(String(completed.body.requestId)))).not.toContain('header-id-not-the-one');
      expect(requestLine(String(completed.body.requestId))).toMatchObject({
        level: 30,
        msg: 'request completed',
        partnerId: 'acme',
        programCode: 'sandbox',
        req: { method: 'POST', url: ENROLL, route: '/v1/programs/:programCode/enrollments' },
        res: { statusCode: 200, code: 0, subCode: 0 },
        responseTime: expect.any(Number),
      });

      // A decline (HTTP 200, code 2): the same SSN again while the first account is active.
      const second = EnrollmentRequestFactory.build({ encryptedUserData: { identifyingData: { ssn, dateOfBirth: '1985-06-15' } } });
      const declined = await app.client().post(ENROLL, second);
      expect({ status: declined.status, detail: declined.body.responseDetails[0] }).toMatchObject({ status: 200, detail: { code: 2, subCode: 60 } });
      expect(requestLine(String(declined.body.requestId))).toMatchObject({ partnerId: 'acme', res: { statusCode: 200, code: 2, subCode: 60 } });
      // Its identical retry, answered from the stored text: the same code and subCode on its line.
      const lines = logLines.length;
      const replayed = await app.client().post(ENROLL, second);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const replayLine = () =>
        logLines
          .slice(lines)
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((line) => line.msg === 'request completed' && line.requestId === declined.body.requestId);
      await waitUntil(async () => replayLine() !== undefined, 5000, 20);
      expect(replayLine()).toMatchObject({ res: { statusCode: 200, code: 2, subCode: 60 } });

      // An error answer: its envelope's first detail, and the route pattern, not the URL (nor its query,
      // which a read refuses: 400/100/2 naming it).
      const account = '00000000-0000-4000-8000-000000000000';
      for (const [query, statusCode] of [
        ['', 404],
        ['?probe=1', 400],
      ] as const) {
        const missing = await app.client().get(`${ENROLL}/accounts/${account}${query}`);
        expect(missing.status).toBe(statusCode);
        const detail = missing.body.responseDetails[0] as { code: number; subCode: number };
        expect(requestLine(String(missing.body.requestId))).toMatchObject({
          partnerId: 'acme',
          programCode: 'sandbox',
          req: { method: 'GET', url: `${ENROLL}/accounts/${account}`, route: ACCOUNT_ROUTE },
          res: { statusCode, code: detail.code, subCode: detail.subCode },
        });
      }

      // Refused before any partner is known: no partner; a route that does not exist: no pattern.
      const anonymous = await fetch(`${app.baseUrl}${ENROLL}/accounts/${account}`);
      const anonymousBody = (await anonymous.json()) as { requestId: string; responseDetails: Array<{ code: number; subCode: number }> };
      const anonymousLine = requestLine(anonymousBody.requestId);
      expect(anonymousLine).toMatchObject({ res: { statusCode: 401, code: anonymousBody.responseDetails[0]?.code } });
      expect(anonymousLine).not.toHaveProperty('partnerId');
      const nowhere = await fetch(`${app.baseUrl}/v1/nowhere`, { headers: { 'x-request-id': 'log-probe-404' } });
      expect(nowhere.status).toBe(404);
      expect(requestLine('log-probe-404')).toMatchObject({ req: { url: '/v1/nowhere' }, res: { statusCode: 404, code: 404 } });
      expect(requestLine('log-probe-404').req).not.toHaveProperty('route');

      const all = logLines.join('\n');
      for (const secret of [ssn, String(first.encryptedUserData.lastName), String(first.encryptedUserData.firstName), '1985-06-15', 'probe=1'])
        expect(all).not.toContain(secret);
    });

    it("names the program a body names (webhook test, scan capture) when it is one of the partner's, never an unchecked value", async () => {
      const acme = app.client();
      const named = await acme.post(
        '/v1/webhooks/test',
        { eventType: 'accountUpdated', programCode: 'sandbox' },
        { headers: { 'x-request-id': 'log-probe-body-program' } },
      );
      expect(named.status).toBe(200);
      expect(requestLine(String(named.body.requestId))).toMatchObject({ partnerId: 'acme', programCode: 'sandbox', req: { route: '/v1/webhooks/test' } });
      const foreign = await acme.post('/v1/webhooks/test', { eventType: 'accountUpdated', programCode: 'not-a-program-Zq9' }, { noRetry: true });
      expect(foreign.status).toBe(403);
      expect(requestLine(String(foreign.body.requestId))).not.toHaveProperty('programCode');
      expect(logLines.join('\n')).not.toContain('not-a-program-Zq9');
    });

    it("names the program of the path only when it is one of the partner's: an unchecked path value never reaches the log", async () => {
      const path = (program: string) => `/v1/programs/${program}/enrollments`;
      const foreign = await app.client().post(path('271-83-4620'), EnrollmentRequestFactory.build(), { noRetry: true });
      expect(foreign.status).toBe(403);
      const anonymous = await app.client().post(path('271-83-4621'), EnrollmentRequestFactory.build(), { anonymous: true, noRetry: true });
      expect(anonymous.status).toBe(401);
      expect(requestLine(String(foreign.body.requestId))).toMatchObject({ partnerId: 'acme', req: { route: '/v1/programs/:programCode/enrollments' } });
      expect(requestLine(String(foreign.body.requestId))).not.toHaveProperty('programCode');
      expect(logLines.join('\n')).not.toMatch(/"programCode":"271-83-462/);
      // Nor in the path the line carries: a segment that reads as a person's number or email is redacted.
      expect(requestLine(String(foreign.body.requestId)).req.url).toBe('/v1/programs/[redacted]/enrollments');
      for (const pasted of ['271834622', '(271)%20834-6223', 'jose.path%40example.com', 'jose.path@example.com']) {
        const res = await app.client().get(`/v1/programs/sandbox/enrollments/accounts/${pasted}`, { noRetry: true });
        expect(requestLine(String(res.body.requestId)).req.url).toBe('/v1/programs/sandbox/enrollments/accounts/[redacted]');
      }
      expect(logLines.join('\n')).not.toMatch(/271-?83-?462|271834622|834-6223|jose\.path/);
    });

    it('names the program a call resolves without naming it: the default of a webhook test, the account of an ITIN call or a care action', async () => {
      const defaulted = await app.client().post('/v1/webhooks/test', { eventType: 'accountUpdated' });
      expect(defaulted.status).toBe(200);
      expect(requestLine(String(defaulted.body.requestId))).toMatchObject({ partnerId: 'acme', programCode: 'sandbox' });
      const enrolled = await app.client().post(ENROLL, EnrollmentRequestFactory.build());
      const accountId = (enrolled.body.account as { accountIdentifier: string }).accountIdentifier;
      const userId = (enrolled.body.user as { userIdentifier: string }).userIdentifier;
      // Not a Matricula enrollment: refused (5/380) after the account was found, still in its program.
      const itin = await app.client().post(`/v1/accounts/${accountId}/users/${userId}/identity`, { itin: '912701234' }, { noRetry: true });
      expect(requestLine(String(itin.body.requestId))).toMatchObject({
        partnerId: 'acme',
        programCode: 'sandbox',
        req: { route: '/v1/accounts/:accountIdentifier/users/:userIdentifier/identity' },
      });
      const locked = await app.client('care').post(`/v1/care/accounts/${accountId}/lock`, {});
      expect(locked.status).toBe(200);
      expect(requestLine(String(locked.body.requestId))).toMatchObject({ programCode: 'sandbox' });
    });

    it('names the partner of a token request once its client authenticated, and none for a refused one', async () => {
      const tokenRequest = (secret: string, requestId: string) =>
        fetch(`${app.baseUrl}/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${PARTNERS.acme.clientId}:${secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
            'x-request-id': requestId,
          },
          body: 'grant_type=client_credentials',
        });
      expect((await tokenRequest(PARTNERS.acme.clientSecret, 'log-probe-token')).status).toBe(200);
      expect(requestLine('log-probe-token')).toMatchObject({ partnerId: 'acme', req: { route: '/oauth2/token' }, res: { statusCode: 200 } });
      expect((await tokenRequest('not-the-secret', 'log-probe-token-refused')).status).toBe(401);
      const refused = requestLine('log-probe-token-refused');
      expect(refused).toMatchObject({ req: { route: '/oauth2/token' }, res: { statusCode: 401 } });
      expect(refused).not.toHaveProperty('partnerId');
      expect(logLines.join('\n')).not.toContain(PARTNERS.acme.clientSecret);
    });

    it.each([
      [
        'headers over 16 KiB',
        (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(17_000)}\r\n\r\n`,
        /headers exceed 16 KiB/,
      ],
      [
        'a Content-Length that is not a number',
        (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
        /HTTP could not read it/,
      ],
      [
        'an HTTP/1.1 request without a Host header',
        (path: string) => `POST ${path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        /no Host header/,
      ],
    ])(
      'a request HTTP cannot take (%s) answers the 400/100/1 envelope with X-Request-Id, no-store and nosniff, and is logged with its id (CONTRACT sections 1, 2)',
      async (_case, request, cause) => {
        const url = new URL(app.baseUrl);
        const raw = await new Promise<string>((resolve, reject) => {
          const socket = net.connect(Number(url.port), url.hostname, () => socket.end(request(ENROLL)));
          let text = '';
          socket.setEncoding('utf8');
          socket.on('data', (chunk: string) => (text += chunk));
          socket.on('end', () => resolve(text));
          socket.on('error', reject);
        });
        const [head, body] = raw.split('\r\n\r\n', 2);
        expect(head).toMatch(/^HTTP\/1\.1 400 /);
        const requestId = /\r\nX-Request-Id: ([^\r]+)/i.exec(head)?.[1];
        expect(head).toMatch(/\r\nCache-Control: no-store/i);
        // docs/security.md: nosniff on every answer, these included.
        expect(head).toMatch(/\r\nX-Content-Type-Options: nosniff/i);
        const envelope = JSON.parse(body) as {
          requestId: string;
          responseDetails: Array<{ code: number; subCode: number; description: string; docUrl: string }>;
        };
        expect(envelope.requestId).toBe(requestId);
        expect(envelope.responseDetails).toEqual([
          { code: 100, subCode: 1, description: expect.stringMatching(cause), docUrl: expect.stringMatching(/\/docs\/errors#100-1$/) },
        ]);
        await waitUntil(async () => parsed().some((l) => l.requestId === requestId), 5_000, 20);
        expect(requestLine(requestId as string)).toMatchObject({ msg: 'request completed', res: { statusCode: 400, code: 100, subCode: 1 } });
      },
    );

    it('requests pipelined on one connection are each logged under their own requestId', async () => {
      const { port } = new URL(app.baseUrl);
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      await new Promise((resolve) => socket.once('connect', resolve));
      const ids = ['log-pipelined-1', 'log-pipelined-2', 'log-pipelined-3'];
      const paths = ['/health/live', '/v1/errors', '/health/live'];
      socket.write(ids.map((id, i) => `GET ${paths[i]} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${id}\r\n\r\n`).join(''));
      await waitUntil(async () => (received.match(/HTTP\/1\.1 200/g) ?? []).length === 3, 5_000, 20);
      socket.destroy();
      await waitUntil(async () => ids.every((id) => parsed().some((l) => l.requestId === id)), 5_000, 20);
      expect(ids.map((id) => (requestLine(id).req as { url: string }).url)).toEqual(paths);
    });

    it('a client that goes away before its body arrived is a client event, not an unexpected error', async () => {
      const { port } = new URL(app.baseUrl);
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST ${ENROLL} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: log-probe-aborted\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"requestId":`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await waitUntil(async () => parsed().some((l) => l.requestId === 'log-probe-aborted'), 5_000, 20);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const lines = parsed().filter((l) => l.requestId === 'log-probe-aborted');
      expect(lines).toEqual([expect.objectContaining({ level: 30, msg: 'request aborted by the client', errorCode: 'ECONNRESET' })]);
      expect(lines[0]).not.toHaveProperty('stack');
    });

    it("keeps Nest's start-up narration (a line per route mapped) below info", () => {
      const narration = parsed().filter((l) => /Mapped \{|RouterExplorer|RoutesResolver|InstanceLoader/.test(`${String(l.msg)} ${String(l.context)}`));
      expect(narration).toEqual([]);
    });
  });

  describe('start and stop of the process (src/main.ts)', () => {
    it("a second start on the same embedded database is refused and leaves the first one's running; Ctrl-C reaches the service, not the database", async () => {
      const dataDir = path.join(process.env.TEST_RUN_DIR as string, uniqueSchema('two-starts'));
      const pgPort = await freePort();
      const startOn = (port: number, logLevel: string) =>
        startMain({
          APP_MODE: 'sandbox',
          LOG_LEVEL: logLevel,
          DATA_DIR: dataDir,
          EMBEDDED_PG_PORT: String(pgPort),
          HOST: '127.0.0.1',
          PORT: String(port),
          JOBS_ENABLED: 'false',
        });
      const firstPort = await freePort();
      const first = startOn(firstPort, 'info');
      try {
        await waitUntil(async () => first.output.out.includes('enrollment-service started') || first.child.exitCode !== null, 90_000, 100);
        expect(first.output.out).toContain('enrollment-service started');
        // The database runs in a process group of its own: a Ctrl-C to the terminal's group reaches the service only.
        // The server listening on pgPort (its data folder may have moved to the temp dir: embedded-db.js).
        const postmaster = Number(
          fs
            .readdirSync('/proc')
            .filter((entry) => /^\d+$/.test(entry))
            .find((pid) => {
              try {
                const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
                return command[0]?.endsWith('/postgres') && command.includes(String(pgPort));
              } catch {
                return false;
              }
            }),
        );
        const groupOf = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[2]);
        expect(groupOf(postmaster)).not.toBe(groupOf(first.child.pid as number));

        const second = startOn(await freePort(), 'silent');
        expect(await second.exited).toBe(1);
        expect(second.output.err).toMatch(/embedded PostgreSQL in .* is in use by a running process \(pid \d+\)/);
        // The first instance still has its database.
        expect((await fetch(`http://127.0.0.1:${firstPort}/health/ready`)).status).toBe(200);
      } finally {
        first.child.kill('SIGTERM');
        await first.exited;
      }
    }, 180_000);

    it('a Ctrl-C while the service starts (its embedded database up, migrating) stops the database too', async () => {
      const dataDir = path.join(process.env.TEST_RUN_DIR as string, uniqueSchema('interrupted-start'));
      const pgPort = await freePort();
      const starting = startMain({
        APP_MODE: 'sandbox',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(pgPort),
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
      });
      // As soon as the database accepts connections, the service is still migrating and building the app.
      await waitUntil(async () => (await connects(pgPort)) || starting.child.exitCode !== null, 90_000, 20);
      starting.child.kill('SIGINT');
      // It exits on its own (0, or 1 when the start it cut short reports its failure first), not killed by the signal.
      expect([0, 1]).toContain(await starting.exited);
      expect(await connects(pgPort)).toBe(false);
    }, 120_000);

    it('a start that fails once its embedded database is up leaves no database server behind', async () => {
      const dataDir = path.join(process.env.TEST_RUN_DIR as string, uniqueSchema('failed-start'));
      const pgPort = await freePort();
      // No DATABASE_URL: main.ts starts the embedded server, migrates, then cannot listen.
      const failing = startMain({
        APP_MODE: 'sandbox',
        LOG_LEVEL: 'silent',
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(pgPort),
        HOST: '999.1.1.1',
        PORT: '4999',
      });
      const code = await failing.exited;
      const err = failing.output.err;
      expect({ code, refused: err.includes('cannot listen on 999.1.1.1:4999 (HOST and PORT)') }).toEqual({ code: 1, refused: true });
      // Nothing answers on the embedded server's port any more.
      expect(await connects(pgPort)).toBe(false);
    }, 120_000);

    it('one summary line at start, one line at a clean stop on SIGTERM, nothing secret in either', async () => {
      const secrets = { acme: `acme-${Date.now()}-secret`, care: `care-${Date.now()}-secret` };
      const configFile = path.join(process.env.TEST_RUN_DIR as string, `${uniqueSchema('startup')}.json`);
      const programs = BASE_PROGRAMS.map((program) => program.programCode);
      fs.writeFileSync(
        configFile,
        JSON.stringify({
          programs: BASE_PROGRAMS,
          partners: [
            { partnerId: 'acme', clientId: 'acme', clientSecret: 'env:PROD_ACME_SECRET', programs, scopes: ['enrollments'] },
            { partnerId: 'care', clientId: 'care', clientSecret: 'env:PROD_CARE_SECRET', programs, scopes: ['care'] },
          ],
        }),
      );
      const keys = await generateKeyMaterial();
      const metricsPort = await freePort();
      const databaseUrl = process.env.DATABASE_URL as string;
      const { child, output, exited } = startMain({
        APP_MODE: 'production',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: '0',
        METRICS_PORT: String(metricsPort),
        SERVICE_CONFIG: configFile,
        SERVICE_KEYS: JSON.stringify(keys),
        PUBLIC_URL: 'https://enrollment.test',
        OFAC_LIST_DIR: path.join(__dirname, 'fixtures', 'ofac'),
        DATABASE_URL: databaseUrl,
        DATABASE_TLS: 'off',
        DB_SCHEMA: uniqueSchema('startup'),
        JOBS_ENABLED: 'false',
        PROD_ACME_SECRET: secrets.acme,
        PROD_CARE_SECRET: secrets.care,
      });
      const lines = () =>
        output.out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
      try {
        const deadline = Date.now() + 60_000;
        while (!lines().some((l) => l.msg === 'enrollment-service started')) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no start-up line: ${output.err}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } catch (error) {
        child.kill('SIGKILL');
        throw error;
      }
      const started = lines().filter((l) => l.msg === 'enrollment-service started');
      expect(started).toHaveLength(1);
      const url = new URL(databaseUrl);
      expect(started[0]).toMatchObject({
        level: 30,
        mode: 'production',
        programs,
        partners: { count: 2, ids: ['acme', 'care'] },
        listeners: { api: expect.stringMatching(/^127\.0\.0\.1:\d+$/), metrics: `127.0.0.1:${metricsPort}` },
        publicUrl: 'https://enrollment.test',
        database: expect.stringContaining(`${url.hostname}:${url.port}${url.pathname}`),
        keys: { signing: [keys.signing.kid], encryption: [keys.encryption.kid], dataKey: keys.currentDataKeyId },
        ofac: { entries: expect.any(Number) },
        tracing: 'off',
        careConsole: 'off (no CARE_OAUTH_* identity provider)',
      });
      expect((started[0]?.ofac as { entries: number }).entries).toBeGreaterThan(0);

      child.kill('SIGTERM');
      // A second SIGTERM while it stops (an orchestrator repeating itself) does not cut the stop short.
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (child.exitCode === null) child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const stopped = lines().filter((l) => l.msg === 'enrollment-service stopped cleanly');
      expect(stopped).toEqual([expect.objectContaining({ level: 30, signal: 'SIGTERM' })]);
      expect(lines().at(-1)).toEqual(stopped[0]);

      // Nest's narration stays below info; and nothing secret was written, start to end.
      expect(output.out).not.toMatch(/Mapped \{/);
      const secretValues = [
        secrets.acme,
        secrets.care,
        url.password,
        String(keys.signing.d),
        String(keys.encryption.d),
        keys.blindIndexKey,
        ...Object.values(keys.dataKeys),
      ].filter((s) => s.length > 0);
      for (const secret of secretValues) expect(output.out + output.err).not.toContain(secret);
      // An operator's stderr stays empty on a clean start and stop: no library deprecation or warning.
      expect(output.err).toBe('');
    }, 120_000);
  });
});
