import * as fs from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { EnrollmentClient } from '../client/enrollment-client';
import { generateKeyMaterial } from '../src/infrastructure/crypto/key-store';
import { BASE_PROGRAMS, PARTNERS, startTestApp, TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

interface Delivery {
  attempt: number;
  outcome: string;
  statusCode: number | null;
}

const OFAC_FIXTURE = path.join(__dirname, 'fixtures', 'ofac');

/** A partner of its own (beside the standard ones) whose webhook goes to `url`. */
function hookedPartner(partnerId: string, url: string, secret: string): Record<string, unknown> {
  return { partnerId, clientId: partnerId, clientSecret: `${partnerId}-test-secret`, programs: ['sandbox'], scopes: ['webhooks'], webhook: { url, secret } };
}

function clientOf(app: TestApp, partnerId: string): EnrollmentClient {
  return new EnrollmentClient({ baseUrl: app.baseUrl, clientId: partnerId, clientSecret: `${partnerId}-test-secret` });
}

async function sendTest(client: EnrollmentClient): Promise<string> {
  const res = await client.post<{ eventId: string; requestId: string; responseDetails: unknown[] }>('/v1/webhooks/test', { eventType: 'accountUpdated' });
  expect(res.status).toBe(200);
  return res.body.eventId;
}

/** The partner's own view of an event once it has `count` attempts recorded. */
async function attemptsOf(client: EnrollmentClient, eventId: string, count = 1): Promise<{ event: Record<string, unknown>; deliveries: Delivery[] }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await client.get<{ event: Record<string, unknown> & { deliveries: Delivery[] }; requestId: string; responseDetails: unknown[] }>(
      `/v1/webhooks/events/${eventId}`,
    );
    expect(res.status).toBe(200);
    if (res.body.event.deliveries.length >= count) return { event: res.body.event, deliveries: res.body.event.deliveries };
    if (Date.now() > deadline) throw new Error(`event ${eventId}: ${res.body.event.deliveries.length} attempts recorded`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** CONTRACT section 7 (2026-11-25): webhook isolation between partners and from the service's own network. */
describe('Webhook isolation (e2e)', () => {
  describe('test and redeliver calls are limited per partner', () => {
    let app: TestApp;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      app = await startTestApp('webhook_call_limit', { webhookUrl: receiver.url, webhookSecret: receiver.secret, env: { WEBHOOK_TEST_RATE_LIMIT: '3' } });
    });

    afterAll(async () => {
      await app?.close();
      await receiver?.close();
    });

    it('beyond WEBHOOK_TEST_RATE_LIMIT a minute, test and redeliver answer 429/429/0 with Retry-After; another partner is not affected', async () => {
      const acme = app.client('acme');
      const first = await sendTest(acme);
      await sendTest(acme);
      const redelivered = await acme.post(`/v1/webhooks/events/${first}/redeliver`, {});
      expect(redelivered.status).toBe(200);
      expect(redelivered.headers.get('ratelimit-policy')).toBe('"partner";q=3;w=60');
      for (const refused of [
        await acme.post('/v1/webhooks/test', { eventType: 'accountUpdated' }, { noRetry: true }),
        await acme.post(`/v1/webhooks/events/${first}/redeliver`, {}, { noRetry: true }),
      ]) {
        expect(refused.status).toBe(429);
        expect(refused.body.responseDetails).toEqual([
          { code: 429, subCode: 0, description: 'Too many webhook test or redeliver calls; retry later', docUrl: expect.stringMatching(/#429-0$/) },
        ]);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      }
      // The refused test call stored no event.
      const db = await app.db();
      try {
        const { rows } = await db.query(`select count(*)::int as n from outbox_events where partner_id = 'acme'`);
        expect(rows[0].n).toBe(2);
      } finally {
        await db.end();
      }
      const globex = await app.client('globex').post('/v1/webhooks/test', { eventType: 'accountUpdated', programCode: 'other' });
      expect(globex.status).toBe(200);
    });

    it('every answer of the limited routes carries RateLimit-Policy and RateLimit, the 401 and the 403 too (CONTRACT section 12)', async () => {
      const hashed = app.client('hashed');
      const withoutScope = await hashed.post('/v1/webhooks/test', { eventType: 'accountUpdated' }, { noRetry: true });
      expect(withoutScope.status).toBe(403);
      expect(withoutScope.headers.get('ratelimit-policy')).toBe('"partner";q=3;w=60');
      // The partner is known: its own window, counted like any of its calls.
      expect(withoutScope.headers.get('ratelimit')).toMatch(/^"partner";r=2;t=([1-9]|[1-5][0-9]|60)$/);
      for (const url of ['/v1/webhooks/test', '/v1/webhooks/events/00000000-0000-4000-8000-000000000000/redeliver']) {
        for (const headers of [{}, { authorization: 'Bearer not-a-token' }]) {
          const unauthenticated = await fetch(`${app.baseUrl}${url}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: '{}',
          });
          expect(unauthenticated.status).toBe(401);
          expect(unauthenticated.headers.get('ratelimit-policy')).toBe('"partner";q=3;w=60');
          // No partner, nothing counted: the whole quota.
          expect(unauthenticated.headers.get('ratelimit')).toBe('"partner";r=3;t=60');
        }
      }
    });
  });

  describe('delivery capacity is shared fairly between partners', () => {
    const TIMEOUT_MS = 1_500;
    let app: TestApp;
    let hanging: WebhookReceiver;
    let healthy: WebhookReceiver;

    beforeAll(async () => {
      hanging = await WebhookReceiver.start();
      hanging.stall(true);
      healthy = await WebhookReceiver.start();
      app = await startTestApp('webhook_fairness', {
        webhookUrl: hanging.url,
        webhookSecret: hanging.secret,
        extraPartners: [hookedPartner('healthy', healthy.url, healthy.secret)],
        env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_LEASE_SECONDS: '15', WEBHOOK_PARTNER_MAX_IN_FLIGHT: '2', WEBHOOK_RETRY_DELAYS_MS: '60000' },
      });
    });

    afterAll(async () => {
      await app.close();
      await hanging.close();
      await healthy.close();
    });

    it("one partner's hanging receiver delays another partner's events by at most one attempt's timeout", async () => {
      // 80 events of the hanging partner, all due before the other partner's: more than one shared queue of 64 slots takes at once.
      const acme = app.client('acme');
      const hangStarted = Date.now();
      for (let batch = 0; batch < 8; batch += 1) await Promise.all(Array.from({ length: 10 }, () => sendTest(acme)));
      await hanging.waitFor((received) => received.length > 0);
      const other = clientOf(app, 'healthy');
      const started = Date.now();
      const ids = await Promise.all(Array.from({ length: 5 }, () => sendTest(other)));
      await healthy.waitFor((received) => ids.every((id) => received.some((w) => w.id === id)), TIMEOUT_MS + 1_000);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(healthy.received.every((w) => w.verified && w.answered === 200)).toBe(true);
      // The hanging partner held at most its 2 slots at a time: 2 attempts per timeout so far, not the whole queue.
      const rounds = Math.ceil((Date.now() - hangStarted) / TIMEOUT_MS) + 1;
      expect(hanging.received.length).toBeLessThanOrEqual(2 * rounds);
    });
  });

  describe('partners see an outcome per attempt, never a network error text', () => {
    let app: TestApp;
    let answering: WebhookReceiver;
    let hanging: WebhookReceiver;
    let redirecting: WebhookReceiver;

    beforeAll(async () => {
      answering = await WebhookReceiver.start();
      answering.respond(() => 500);
      hanging = await WebhookReceiver.start();
      hanging.stall(true);
      redirecting = await WebhookReceiver.start();
      redirecting.respond(() => 302);
      const answeringPort = new URL(answering.url).port;
      app = await startTestApp('webhook_outcomes', {
        webhookUrl: answering.url,
        webhookSecret: answering.secret,
        extraPartners: [
          hookedPartner('hangs', hanging.url, hanging.secret),
          hookedPartner('redirects', redirecting.url, redirecting.secret),
          hookedPartner('closed', `http://127.0.0.1:${await closedPort()}/hooks`, answering.secret),
          // TLS to a plain HTTP receiver: the handshake fails.
          hookedPartner('plaintext', `https://127.0.0.1:${answeringPort}/hooks`, answering.secret),
          // A secret in the URL (credentials, a query token) is the partner's: never shown back.
          hookedPartner('tokened', `http://hook-user:hook-pass@127.0.0.1:${answeringPort}/hooks?token=hook-query-secret#part`, answering.secret),
        ],
        env: { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_SECONDS: '15', WEBHOOK_RETRY_DELAYS_MS: '60000' },
      });
    });

    afterAll(async () => {
      await app.close();
      await answering.close();
      await hanging.close();
      await redirecting.close();
    });

    it.each([
      ['acme', 'httpStatus', 500],
      // Not followed: the signed payload goes only where it was configured to.
      ['redirects', 'httpStatus', 302],
      ['hangs', 'timeout', null],
      ['closed', 'connectionRefused', null],
      ['plaintext', 'tls', null],
    ])("%s's attempt is reported as %s", async (partnerId, outcome, statusCode) => {
      const client = partnerId === 'acme' ? app.client('acme') : clientOf(app, partnerId);
      const eventId = await sendTest(client);
      const { event, deliveries } = await attemptsOf(client, eventId);
      expect(deliveries[0]).toMatchObject({ attempt: 1, outcome, statusCode });
      expect(deliveries[0]).not.toHaveProperty('error');
      expect(JSON.stringify(event)).not.toMatch(/ECONN|EPROTO|SSL|ssl|wrong version|timeout after|HTTP \d{3}|Error/);
    });

    it("an attempt names the address called without the URL's credentials, query string or fragment", async () => {
      const client = clientOf(app, 'tokened');
      const eventId = await sendTest(client);
      const { event, deliveries } = await attemptsOf(client, eventId);
      // The POST went to the URL as configured…
      expect(answering.received.some((w) => w.url === '/hooks?token=hook-query-secret')).toBe(true);
      // …and the partner's view (care's is the same view) shows where, not the secrets.
      expect(deliveries[0]).toMatchObject({ attempt: 1, url: answering.url });
      expect(JSON.stringify(event)).not.toMatch(/hook-user|hook-pass|hook-query-secret|#part/);
    });
  });

  describe('production calls only public addresses, over https', () => {
    let app: TestApp;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      receiver = await WebhookReceiver.start();
      const config = path.join(process.env.TEST_RUN_DIR as string, 'webhook-production.json');
      const programs = BASE_PROGRAMS.map((program) => program.programCode);
      // `localhost` resolves to a loopback address: the name passes the https rule, the address must not pass the range check.
      const webhook = { url: `https://localhost:${new URL(receiver.url).port}/hooks`, secret: 'env:PROD_ACME_WEBHOOK_SECRET' };
      fs.writeFileSync(
        config,
        JSON.stringify({
          programs: BASE_PROGRAMS,
          partners: [{ partnerId: 'acme', clientId: 'acme', clientSecret: 'env:PROD_ACME_SECRET', programs, scopes: ['enrollments', 'webhooks'], webhook }],
        }),
      );
      app = await startTestApp('webhook_production', {
        env: {
          APP_MODE: 'production',
          // The test database has no TLS: say so, as production requires.
          DATABASE_TLS: 'off',
          SERVICE_CONFIG: config,
          SERVICE_KEYS: JSON.stringify(await generateKeyMaterial()),
          PUBLIC_URL: 'https://enrollment.test',
          OFAC_LIST_DIR: OFAC_FIXTURE,
          PROD_ACME_SECRET: PARTNERS.acme.clientSecret,
          PROD_ACME_WEBHOOK_SECRET: receiver.secret,
          // One attempt within the test; production needs a schedule of 24 hours or more (CONTRACT section 7).
          WEBHOOK_RETRY_DELAYS_MS: '60000,86400000',
        },
      });
    });

    afterAll(async () => {
      await app?.close();
      await receiver?.close();
    });

    it('a webhook host resolving to 127.0.0.1 is refused (refusedAddress) and no connection is made', async () => {
      const client = app.client('acme');
      const eventId = await sendTest(client);
      const { deliveries } = await attemptsOf(client, eventId);
      expect(deliveries).toEqual([expect.objectContaining({ attempt: 1, outcome: 'refusedAddress', statusCode: null })]);
      expect(receiver.connections).toBe(0);
      expect(receiver.received).toHaveLength(0);
    });
  });
});
