import { signWebhook } from './webhook-signer';

describe('signWebhook', () => {
  // The Standard Webhooks specification's test vector.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

  it("signs as the Standard Webhooks specification's example, the first time and with the key it kept", () => {
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(expected);
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(expected);
  });

  it('signs with each secret its own key', () => {
    const other = signWebhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(other).not.toBe(expected);
    expect(signWebhook(secret.slice('whsec_'.length), 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(expected);
  });
});
