import { createServer, Server, Socket } from 'node:net';
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
 * docs/operations.md, "Stopping": from the moment closing starts, an instance takes no new
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
