import { EVENT_TYPES } from '../src/modules/events/event-types';
import { startTestApp, TestApp } from './support/test-app';
import { newWebhookSecret, verifySignature, WebhookReceiver } from './support/webhook-receiver';

interface EventBody {
  eventId: string;
  webhookConfigured: boolean;
  programCode: string;
  event: {
    eventId: string;
    deliveryStatus: string;
    attempts: number;
    deliveries: Array<{ attempt: number; statusCode: number | null; error: string | null; url: string; durationMs: number }>;
  };
}

// Small retry delays so that the whole retry ladder runs inside a test: 4 attempts at most.
const RETRY_ENV = { WEBHOOK_RETRY_DELAYS_MS: '200,300,400' };

describe('Webhooks (e2e)', () => {
  let receiver: WebhookReceiver;
  let app: TestApp;

  const start = (label: string, schema?: string, env: Record<string, string> = {}) =>
    startTestApp(label, { schema, webhookUrl: receiver.url, webhookSecret: receiver.secret, env: { ...RETRY_ENV, ...env } });

  async function sendTest(target: TestApp, eventType: string, extra: Record<string, unknown> = {}) {
    const res = await target.client('acme').post<EventBody & { requestId: string; responseDetails: Array<{ code: number; subCode: number }> }>(
      '/v1/webhooks/test',
      { eventType, ...extra },
    );
    expect(res.status).toBe(200);
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    return res.body.eventId;
  }

  async function eventView(target: TestApp, eventId: string) {
    const res = await target.client('care').get<EventBody>(`/v1/care/webhooks/events/${eventId}`);
    expect(res.status).toBe(200);
    return res.body.event;
  }

  async function waitForStatus(target: TestApp, eventId: string, status: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const event = await eventView(target, eventId);
      if (event.deliveryStatus === status) return event;
      if (Date.now() > deadline) throw new Error(`event ${eventId} still ${event.deliveryStatus}`);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await start('webhooks');
  });

  afterEach(() => receiver.respond(() => 200));

  afterAll(async () => {
    await app.close();
    await receiver.close();
  });

  it('delivers a signed test event with the Standard Webhooks headers and the contract body', async () => {
    const eventId = await sendTest(app, 'accountUpdated');
    const [webhook] = await receiver.waitFor(() => receiver.forEvent(eventId).length === 1).then(() => receiver.forEvent(eventId));
    expect(webhook.verified).toBe(true);
    expect(verifySignature(newWebhookSecret(), webhook.id, webhook.timestamp, webhook.body, webhook.signature)).toBe(false);
    expect(verifySignature(receiver.secret, webhook.id, webhook.timestamp, `${webhook.body} `, webhook.signature)).toBe(false);
    expect(webhook.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(webhook.timestamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(webhook.timestamp) - Date.now() / 1000)).toBeLessThan(300);
    expect(webhook.json).toEqual({
      eventId,
      eventType: 'accountUpdated',
      occurredDateTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
      programCode: 'sandbox',
      accountIdentifier: null,
      data: expect.objectContaining({ test: true }),
    });
    const event = await waitForStatus(app, eventId, 'delivered');
    expect(event.attempts).toBe(1);
    expect(event.deliveries).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, error: null, url: receiver.url })]);
  });
});
