import { signWebhook } from '../src/modules/events/webhook-signer';
import { verifyWebhook } from './webhooks';

const SECRET = `whsec_${Buffer.from('a partner secret of 32 bytes ...').toString('base64')}`;
const NOW = new Date('2026-11-25T18:00:00Z');
const TIMESTAMP = Math.floor(NOW.getTime() / 1000);
const BODY = '{"eventId":"e-1","eventType":"accountUpdated","data":{"status":"locked"}}';

/** The headers the service's own signer produces for a delivery at `timestamp`. */
function signed(body = BODY, timestamp = TIMESTAMP, secret = SECRET): Record<string, string> {
  return { 'webhook-id': 'e-1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, 'e-1', timestamp, body) };
}

describe(verifyWebhook.name, () => {
  it("accepts what the service's signer signs, from a plain object, a Headers object or bytes", () => {
    expect(verifyWebhook(signed(), BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhook(new Headers(signed()), Buffer.from(BODY), SECRET, { now: NOW })).toBe(true);
  });

  it('refuses a changed body, another secret, a changed id and a missing header', () => {
    expect(verifyWebhook(signed(), BODY.replace('locked', 'normal'), SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhook(signed(), BODY, `whsec_${Buffer.from('another secret').toString('base64')}`, { now: NOW })).toBe(false);
    expect(verifyWebhook({ ...signed(), 'webhook-id': 'e-2' }, BODY, SECRET, { now: NOW })).toBe(false);
    const unsigned: Record<string, string> = signed();
    delete unsigned['webhook-signature'];
    expect(verifyWebhook(unsigned, BODY, SECRET, { now: NOW })).toBe(false);
  });

  it('refuses a timestamp outside the tolerance either way (a replayed delivery), and accepts one inside it', () => {
    expect(verifyWebhook(signed(BODY, TIMESTAMP - 301), BODY, SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhook(signed(BODY, TIMESTAMP + 301), BODY, SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhook(signed(BODY, TIMESTAMP - 299), BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhook(signed(BODY, TIMESTAMP - 3600), BODY, SECRET, { now: NOW, toleranceSeconds: 7200 })).toBe(true);
  });

  it('accepts any one valid v1 signature of several (a secret in rotation), never another version', () => {
    const valid = signed()['webhook-signature'];
    expect(verifyWebhook({ ...signed(), 'webhook-signature': `v1,c2lnbmF0dXJl ${valid}` }, BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhook({ ...signed(), 'webhook-signature': valid.replace('v1,', 'v2,') }, BODY, SECRET, { now: NOW })).toBe(false);
  });
});
