import { Injectable } from '@nestjs/common';
import { AttemptOutcome } from './outbox.repository';
import { signWebhook } from './webhook-signer';

const TIMEOUT_MS = 10_000;

export interface WebhookTarget {
  url: string;
  secret: string;
}

/** One signed POST to a partner's webhook URL. Never called inside a database transaction. */
@Injectable()
export class WebhookSender {
  async post(target: WebhookTarget, eventId: string, body: string): Promise<AttemptOutcome & { ok: boolean }> {
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        // A redirect is a failed attempt: following it would send the payload somewhere unconfigured.
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'enrollment-service-webhooks/1',
          'webhook-id': eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(target.secret, eventId, timestamp, body),
        },
        body,
      });
      // The receiver's body is never read or stored: only the status code matters.
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return { ok, url: target.url, statusCode: response.status, error: ok ? null : `HTTP ${response.status}`, durationMs: elapsed(started) };
    } catch (error) {
      return { ok: false, url: target.url, statusCode: null, error: describe(error), durationMs: elapsed(started) };
    }
  }
}

function elapsed(started: number): number {
  return Math.max(0, Math.round(performance.now() - started));
}

function describe(error: unknown): string {
  const err = error as { name?: string; cause?: { code?: string } };
  if (err?.name === 'TimeoutError') return `timeout after ${TIMEOUT_MS} ms`;
  return (err?.cause?.code ?? err?.name ?? 'network error').slice(0, 200);
}
