import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery's request headers: Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far webhook-timestamp may be from now, either way, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to judge the timestamp against (default: now). */
  now?: Date;
}

export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Standard Webhooks verification of one delivery: true when `webhook-signature` holds a `v1,`
 * signature (base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the
 * base64-decoded part of your `whsec_` secret) and `webhook-timestamp` is within the tolerance of
 * now, so that a captured delivery cannot be replayed later. `body` is the raw body as received,
 * before any JSON parsing; answer a delivery that fails with 4xx and do not act on it.
 */
export function verifyWebhook(headers: WebhookHeaders, body: string | Uint8Array, secret: string, options: VerifyWebhookOptions = {}): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d{1,15}$/.test(timestamp)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS)) return false;
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
  // Several signatures, space-separated, while a secret is being rotated: any one valid v1 suffices.
  return signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
