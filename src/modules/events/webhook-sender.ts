import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import * as http from 'node:http';
import * as https from 'node:https';
import { AppConfig } from '../../config/app-config';
import { DeliveryOutcome } from './event-types';
import { AttemptOutcome } from './outbox.repository';
import { checkedLookup, RefusedAddressError, refusedLiteral } from './webhook-address';
import { signWebhook } from './webhook-signer';

export interface WebhookTarget {
  url: string;
  secret: string;
}

/**
 * The address an attempt is recorded and shown with: scheme, host, port and path, without the URL's
 * credentials (user:password@), query string or fragment, which may carry a secret of the partner's
 * (a token in the query): the partner and care see where it went, not what opened the door.
 */
export function attemptUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '';
  }
}

/** What the dispatcher learns of one POST: the partner-facing outcome, and for the log only, the error's code. */
export type PostResult = AttemptOutcome & { ok: boolean; errorCode: string | null };

/** How far a connection got before it failed: decides between connectionRefused and tls. */
type Phase = 'connecting' | 'handshake' | 'open';

/**
 * One signed POST to a partner's webhook URL. Never called inside a database transaction.
 * In production only public addresses are called (CONTRACT section 7): the host is resolved once by
 * the connection's own lookup, which refuses loopback, private, link-local and unique-local
 * addresses, so the address checked is the one connected to; TLS still names the URL's host (SNI,
 * certificate) because the request keeps its hostname.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly publicOnly: boolean;
  private readonly lookup: ReturnType<typeof checkedLookup>;
  // Keep-alive pools: a reused socket was checked when it was opened.
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  constructor(private readonly config: AppConfig) {
    this.publicOnly = config.isProduction;
    this.lookup = checkedLookup(this.publicOnly);
  }

  /** After every module's destroy hook: the dispatcher has drained its attempts by then. */
  onApplicationShutdown(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  async post(target: WebhookTarget, eventId: string, body: string): Promise<PostResult> {
    const timestamp = Math.floor(Date.now() / 1000);
    const started = performance.now();
    const result = (outcome: DeliveryOutcome, statusCode: number | null, errorCode: string | null): PostResult => ({
      ok: outcome === 'delivered',
      url: attemptUrl(target.url),
      outcome,
      statusCode,
      durationMs: Math.max(0, Math.round(performance.now() - started)),
      errorCode,
    });
    const url = new URL(target.url);
    if (refusedLiteral(url.hostname, this.publicOnly)) return result('refusedAddress', null, 'EREFUSEDADDRESS');
    const signal = AbortSignal.timeout(this.config.env.webhookTimeoutMs);
    const secure = url.protocol === 'https:';
    const progress: { phase: Phase } = { phase: 'connecting' };
    try {
      const statusCode = await new Promise<number>((resolve, reject) => {
        const request = (secure ? https : http).request(url, {
          method: 'POST',
          agent: secure ? this.agents.https : this.agents.http,
          lookup: this.lookup,
          signal,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'enrollment-service-webhooks/1',
            'webhook-id': eventId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(target.secret, eventId, timestamp, body),
          },
        });
        request.on('socket', (socket) => {
          if (!socket.connecting) {
            progress.phase = 'open';
            return;
          }
          socket.once('connect', () => (progress.phase = secure ? 'handshake' : 'open'));
          socket.once('secureConnect', () => (progress.phase = 'open'));
        });
        // The receiver's body is never read or stored: only the status code matters. A redirect is a
        // failed attempt like any other non-2xx (following it would send the payload somewhere unconfigured).
        request.on('response', (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end(body);
      });
      return result(statusCode >= 200 && statusCode < 300 ? 'delivered' : 'httpStatus', statusCode, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name ?? 'ERROR';
      if (signal.aborted) return result('timeout', null, 'TIMEOUT');
      if (error instanceof RefusedAddressError) return result('refusedAddress', null, code);
      return result(progress.phase === 'handshake' ? 'tls' : 'connectionRefused', null, code.slice(0, 64));
    }
  }
}
