import * as net from 'node:net';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';
const REQUEST_TIMEOUT_MS = 3000;
const DB_QUERY_TIMEOUT_MS = 1000;

/**
 * A TCP proxy between the service and PostgreSQL that can stall: while stalled it accepts bytes
 * (and new connections) but forwards nothing either way, as a hung database or a black-holed
 * network does; on resume it delivers what it held and carries on.
 */
class StallingProxy {
  private stalled = false;
  private readonly held: Array<() => void> = [];
  private readonly sockets = new Set<net.Socket>();
  private server?: net.Server;

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  async listen(): Promise<number> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.upstreamPort, this.upstreamHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => this.sockets.delete(socket));
      }
      const pipe = (from: net.Socket, to: net.Socket) =>
        from.on('data', (chunk: Buffer) => {
          if (this.stalled) this.held.push(() => to.write(chunk));
          else to.write(chunk);
        });
      pipe(client, upstream);
      pipe(upstream, client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return (this.server?.address() as net.AddressInfo).port;
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const deliver of this.held.splice(0)) deliver();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/**
 * CONTRACT section 12: a database that hangs never hangs a client. Every pooled connection has a
 * client-side query timeout (pg `query_timeout`), so a stalled statement fails and frees its
 * connection; the request answers 503/503/2 within about REQUEST_TIMEOUT_MS; once the database
 * answers again, the service serves again without a restart.
 */
describe('Stalled database (e2e)', () => {
  let proxy: StallingProxy;
  let app: TestApp;
  const logLines: string[] = [];

  beforeAll(async () => {
    const direct = new URL(process.env.DATABASE_URL as string);
    proxy = new StallingProxy(direct.hostname, Number(direct.port || 5432));
    const viaProxy = new URL(direct.toString());
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(await proxy.listen());
    app = await startTestApp('db_stall', {
      env: {
        DATABASE_URL: viaProxy.toString(),
        JOBS_ENABLED: 'false',
        DB_POOL_SIZE: '4',
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        DB_STATEMENT_TIMEOUT_MS: '800',
        DB_QUERY_TIMEOUT_MS: String(DB_QUERY_TIMEOUT_MS),
        LOG_LEVEL: 'info',
      },
      logLines,
    });
  });

  afterAll(async () => {
    proxy.resume();
    await app.close();
    await proxy.close();
  });

  it('while the database accepts bytes and never answers: 503/503/2 within the bound; after it resumes, calls succeed again', async () => {
    const client = app.client('acme', { fastRetries: false });
    const enrolled = await client.post(ENROLL, EnrollmentRequestFactory.build());
    expect(enrolled.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
    const accountPath = `${ENROLL}/accounts/${(enrolled.body.account as { accountIdentifier: string }).accountIdentifier}`;
    await client.accessToken();

    proxy.stall();
    const started = Date.now();
    const answers = await Promise.all(
      [
        ...Array.from({ length: 6 }, () => client.get(accountPath, { noRetry: true })),
        ...Array.from({ length: 3 }, () => client.post(ENROLL, EnrollmentRequestFactory.build(), { noRetry: true })),
      ].map(async (pending) => ({ answer: await pending, ms: Date.now() - started })),
    );
    for (const { answer, ms } of answers) {
      expect({ status: answer.status, detail: answer.body.responseDetails[0] }).toMatchObject({ status: 503, detail: { code: 503, subCode: 2 } });
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(ms).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
    }
    // Calls that had a pooled connection were ended by the query timeout, before the request timeout.
    expect(Math.min(...answers.map(({ ms }) => ms))).toBeLessThan(REQUEST_TIMEOUT_MS);
    // An outage is the database's, not a defect of the service: a warning per failed call, without a
    // stack (the request line already says 503), never an 'unexpected error' at error level.
    const lines = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; stack?: string });
    expect(lines.filter((line) => line.msg === 'unexpected error')).toEqual([]);
    const unavailable = lines.filter((line) => line.msg === 'database unavailable');
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.every((line) => line.level === 40 && line.stack === undefined)).toBe(true);

    proxy.resume();
    let recovered = false;
    for (let attempt = 0; attempt < 20 && !recovered; attempt++) {
      const res = await client.get(accountPath, { noRetry: true });
      recovered = res.status === 200;
      if (!recovered) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(recovered).toBe(true);
    const later = await client.post(ENROLL, EnrollmentRequestFactory.build());
    expect(later.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
  });
});
