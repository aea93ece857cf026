/**
 * The `webhooks` bench scenario: webhook delivery by the outbox poller to a local receiver that
 * answers 204 at once. Its own service and database, since the other scenarios run with no webhook
 * configured (their events are stored as not deliverable, and delivery would load their figures).
 * 1. Enrollments at the bench's connections for the bench's duration; every delivery's lag is the
 *    receiver's clock minus the event's occurredDateTime (same machine). Then the backlog drains.
 * 2. A burst: WEBHOOK_BURST_EVENTS (20,000) due events written in one statement, timed until the
 *    receiver has every one: events delivered per second with nothing else running.
 */
import * as http from 'node:http';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { drive, percentiles, round } from './load';
import { sleep, startService } from './processes';
import { ScenarioResult } from './report';
import { enrolledFrom } from './requests';
import { nextEnrollment } from './scenarios';
import { BENCH_PARTNER, BENCH_PROGRAM, benchPartnerToken, createWorkspace } from './workspace';

export const WEBHOOKS_SCENARIO = 'webhooks';

export interface WebhookFigures {
  /** Phase 1: events delivered while enrollments ran, per second of the run. */
  deliveredDuringLoad: number;
  deliveredPerSecondDuringLoad: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** Events written but not yet delivered when the enrollments stopped, and how long they took to drain. */
  backlogAtEnd: number;
  drainMs: number;
  /** Phase 2. */
  burst: { events: number; seconds: number; perSecond: number };
}

interface Receiver {
  url: string;
  secret: string;
  lags: number[];
  seen: Set<string>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const lags: number[] = [];
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      if (!seen.has(id)) {
        seen.add(id);
        const occurred = Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurredDateTime: string }).occurredDateTime);
        lags.push(Date.now() - occurred);
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    secret: `whsec_${randomBytes(24).toString('base64')}`,
    lags,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export async function runWebhookScenario(settings: {
  connections: number;
  durationSeconds: number;
  out: string;
  keep: boolean;
}): Promise<ScenarioResult & { webhooks?: WebhookFigures }> {
  const receiver = await startReceiver();
  const workspace = await createWorkspace({ label: 'bench-webhooks', keep: settings.keep, webhookUrl: receiver.url, webhookSecret: receiver.secret });
  const service = await startService({
    env: workspace.serviceEnv({ LOG_LEVEL: 'info', NODE_ENV: 'production' }),
    logFile: path.join(settings.out, 'server-webhooks.log'),
  });
  const db = await workspace.db();
  const pending = async () => (await db.query(`select count(*)::int as n from outbox_events where delivered_at is null and not dead`)).rows[0].n as number;
  try {
    const token = await benchPartnerToken(service.baseUrl);
    const loadStart = Date.now();
    const figures = await drive({
      baseUrl: service.baseUrl,
      connections: settings.connections,
      durationSeconds: settings.durationSeconds,
      next: () => nextEnrollment(token),
      accept: (status, text, request) => enrolledFrom(status, text, request.body ?? '') !== undefined,
    });
    const loadSeconds = (Date.now() - loadStart) / 1000;
    const deliveredDuringLoad = receiver.seen.size;
    const backlogAtEnd = await pending();
    const drainStart = Date.now();
    while ((await pending()) > 0 && Date.now() - drainStart < 120_000) await sleep(50);
    const drainMs = Date.now() - drainStart;
    // The lags of the load, before the burst below adds its own.
    const lags = [...receiver.lags];

    const events = Number(process.env.WEBHOOK_BURST_EVENTS ?? 20_000);
    const before = receiver.seen.size;
    const burstStart = Date.now();
    await db.query(
      `insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at)
       select gen_random_uuid(), $1, $2, null, 'transaction', '{}'::jsonb, now() from generate_series(1, $3)`,
      [BENCH_PARTNER.clientId, BENCH_PROGRAM, events],
    );
    while (receiver.seen.size - before < events && Date.now() - burstStart < 300_000) await sleep(20);
    const burstSeconds = (Date.now() - burstStart) / 1000;
    const [lagP50Ms, lagP99Ms, lagMaxMs] = percentiles(lags, [0.5, 0.99, 1]);
    const webhooks: WebhookFigures = {
      deliveredDuringLoad,
      deliveredPerSecondDuringLoad: round(deliveredDuringLoad / loadSeconds, 1),
      lagP50Ms,
      lagP99Ms,
      lagMaxMs,
      backlogAtEnd,
      drainMs,
      burst: { events: receiver.seen.size - before, seconds: round(burstSeconds, 2), perSecond: round((receiver.seen.size - before) / burstSeconds, 1) },
    };
    return {
      name: WEBHOOKS_SCENARIO,
      description: 'Webhook delivery to a local receiver: enrollments with delivery running (lag per event), then a burst of due events',
      status: 'measured',
      service: figures,
      webhooks,
    };
  } finally {
    await db.end();
    await service.stop();
    await workspace.dispose();
    await receiver.close();
  }
}
