import { createServer as createHttpServer, Server as HttpServer } from 'node:http';
import { createServer, Server, Socket } from 'node:net';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { closeApp, createApp, serve } from '../src/app.factory';
import { AppConfig } from '../src/config/app-config';
import { spawnAppProcess } from './support/app-process-runner';
import { startTestApp, TestApp } from './support/test-app';
import { waitUntil } from './support/wait';

/** What a new connection gets from `baseUrl`'s readiness check: its status, or the connection's error code. */
async function readiness(baseUrl: string): Promise<number | string> {
  try {
    return (await fetch(`${baseUrl}/health/ready`, { headers: { connection: 'close' } })).status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? String(error);
  }
}

/**
 * docs/operations.md, "Starting and stopping": from the moment closing starts, an instance takes no new
 * connection, so a load balancer stops sending it traffic, even while its background work (a
 * webhook attempt in flight, up to WEBHOOK_TIMEOUT_MS) still has to finish before it exits.
 */
describe('Stopping an instance (e2e)', () => {
  let app: TestApp;
  let receiver: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    // A webhook receiver that accepts and never answers: the attempt stays in flight until its timeout.
    receiver = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    // This instance delivers nothing (JOBS_ENABLED=false): the attempt is the stopping process's.
    app = await startTestApp('graceful_stop', { webhookUrl: `http://127.0.0.1:${port}/hook`, env: { JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => receiver.close(resolve));
    await app.close();
  });

  it('takes no new connection once SIGTERM arrived, while a webhook attempt in flight keeps it from exiting', async () => {
    const dying = await spawnAppProcess(app, { WEBHOOK_TIMEOUT_MS: '8000' });
    try {
      const sent = await dying.client().post('/v1/webhooks/test', { eventType: 'accountUpdated' });
      expect(sent.status).toBe(200);
      await waitUntil(async () => held.length > 0, 10_000, 20);
      expect(await readiness(dying.baseUrl)).toBe(200);
      const exited = new Promise((resolve) => dying.child.once('exit', resolve));
      dying.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The attempt is still in flight (its receiver never answers), so the process has not exited yet…
      expect(dying.child.exitCode).toBeNull();
      // …but it no longer takes connections.
      expect(await readiness(dying.baseUrl)).toBe('ECONNREFUSED');
      await exited;
    } finally {
      await dying.stop();
    }
  });
});

/**
 * An instance begins its background work once it serves (app.factory's `serve`, BackgroundWork): one
 * whose listener then fails (a port in use) exits having claimed and posted nothing. Before, the
 * webhook poller and the job workers started with the modules: such an instance claimed a batch,
 * posted it and exited without recording the attempts, which went out again after their lease.
 */
describe('Starting an instance (e2e)', () => {
  let peer: TestApp;
  let receiver: HttpServer;
  let received = 0;

  beforeAll(async () => {
    receiver = createHttpServer((request, response) => {
      received += 1;
      request.resume();
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    // The peer writes events and delivers none (JOBS_ENABLED=false).
    peer = await startTestApp('start_order', { webhookUrl: `http://127.0.0.1:${port}/hook`, env: { JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    await peer.close();
  });

  it('claims no event and posts no webhook until it serves, then delivers', async () => {
    const sent = await peer.client().post('/v1/webhooks/test', { eventType: 'accountUpdated' });
    expect(sent.status).toBe(200);
    const attempts = async () => {
      const db = await peer.db();
      try {
        const { rows } = await db.query<{ attempts: number }>('select attempts from outbox_events');
        return rows.map((row) => row.attempts);
      } finally {
        await db.end();
      }
    };
    expect(await attempts()).toEqual([0]);
    const { env } = peer.config;
    const starting: NestFastifyApplication = await createApp(
      AppConfig.load({
        APP_MODE: 'sandbox',
        DATABASE_URL: env.databaseUrl,
        DB_SCHEMA: peer.schema,
        DATA_DIR: env.dataDir,
        SERVICE_CONFIG: env.serviceConfigPath,
        PUBLIC_URL: env.publicUrl,
        LOG_LEVEL: 'silent',
      }),
    );
    try {
      // Built and initialised, not yet listening (where a taken port would stop it): four of the poller's idle polls pass.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect({ attempts: await attempts(), received }).toEqual({ attempts: [0], received: 0 });
      await serve(starting, { host: '127.0.0.1', port: 0 });
      await waitUntil(async () => received === 1, 10_000, 20);
      expect(await attempts()).toEqual([1]);
    } finally {
      await closeApp(starting);
    }
  });
});
