import { verifyWebhook } from '../client';
import { startTestApp, TestApp } from './support/test-app';
import { ReceivedWebhook, WebhookReceiver } from './support/webhook-receiver';

/** The Standard Webhooks headers of a delivery as the receiver got them. */
function headersOf(webhook: ReceivedWebhook): Record<string, string> {
  return { 'webhook-id': webhook.id, 'webhook-timestamp': webhook.timestamp, 'webhook-signature': webhook.signature };
}

describe("The SDK's verifyWebhook against a delivery the service sent (e2e)", () => {
  let receiver: WebhookReceiver;
  let app: TestApp;
  let delivery: ReceivedWebhook;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp('sdk-webhook', { webhookUrl: receiver.url, webhookSecret: receiver.secret });
    const sent = await app.sdk('acme').api.POST('/v1/webhooks/test', { body: { eventType: 'accountUpdated' } });
    expect(sent.response.status).toBe(200);
    const eventId = sent.data!.eventId;
    [delivery] = (await receiver.waitFor((received) => received.some((w) => w.id === eventId))).filter((w) => w.id === eventId);
  });

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  it('accepts the delivery with its raw body and the partner secret (as the independent check does)', () => {
    expect(delivery.verified).toBe(true);
    expect(verifyWebhook(headersOf(delivery), delivery.body, receiver.secret)).toBe(true);
    expect(verifyWebhook(new Headers(headersOf(delivery)), Buffer.from(delivery.body, 'utf8'), receiver.secret)).toBe(true);
  });

  it('refuses it with a tampered body, another secret, or once its timestamp is older than the tolerance', () => {
    const tampered = delivery.body.replace('"accountUpdated"', '"cardUpdated"');
    expect(tampered).not.toBe(delivery.body);
    expect(verifyWebhook(headersOf(delivery), tampered, receiver.secret)).toBe(false);
    expect(verifyWebhook(headersOf(delivery), delivery.body, `whsec_${Buffer.from('not the partner secret').toString('base64')}`)).toBe(false);
    const sentAt = Number(delivery.timestamp) * 1000;
    expect(verifyWebhook(headersOf(delivery), delivery.body, receiver.secret, { now: new Date(sentAt + 301_000) })).toBe(false);
    expect(verifyWebhook(headersOf(delivery), delivery.body, receiver.secret, { now: new Date(sentAt + 299_000) })).toBe(true);
  });
});
