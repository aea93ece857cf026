import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: { eventId: string; eventType: string; occurredDateTime: string; programCode: string; accountIdentifier: string | null; data: Record<string, unknown> };
  /** The signature checked independently of the service's code, with the receiver's secret. */
  verified: boolean;
  /** The HTTP status this receiver answered. */
  answered: number;
  /** Names of the request's headers (lower case), to check what the service sends partners. */
  headerNames: string[];
  /** The request's path and query string, as sent. */
  url: string;
}

/** Decides the status of the n-th (1-based) delivery of one webhook-id. */
export type Responder = (webhook: ReceivedWebhook, nthForId: number) => number;

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Standard Webhooks verification, written from the specification (not imported from the service). */
export function verifySignature(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = Buffer.from(createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64'));
  return header.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',');
    const given = Buffer.from(value ?? '');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** A real HTTP receiver on 127.0.0.1 that records every webhook and answers per a responder. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private responder: Responder = () => 200;
  private stalled = false;
  private answerDelayMs = 0;
  private connectionCount = 0;

  private constructor(
    private readonly server: Server,
    readonly secret: string,
  ) {}

  static async start(secret = newWebhookSecret()): Promise<WebhookReceiver> {
    // The handler runs only once the server listens, after `receiver` is set.
    const server = createServer((req, res) => receiver.handle(req, res));
    const receiver = new WebhookReceiver(server, secret);
    server.on('connection', () => (receiver.connectionCount += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** TCP connections accepted so far, whether or not a request followed (a refused address opens none). */
  get connections(): number {
    return this.connectionCount;
  }

  /** While on, every webhook is recorded (answered 0) and never answered: a receiver that hangs. */
  stall(on: boolean): void {
    this.stalled = on;
  }

  respond(responder: Responder): void {
    this.responder = responder;
  }

  /** Each answer is sent `ms` after its webhook is recorded (0: at once): an attempt held in flight. */
  answerAfter(ms: number): void {
    this.answerDelayMs = ms;
  }

  forEvent(eventId: string): ReceivedWebhook[] {
    return this.received.filter((w) => w.id === eventId);
  }

  /** Polls until `predicate` holds (deliveries are asynchronous); fails with what was received. */
  async waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) {
        throw new Error(`webhook receiver: condition not met; received ${JSON.stringify(this.received.map((w) => [w.id, w.answered]))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.received;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(req.headers[name] ?? '');
      const webhook: ReceivedWebhook = {
        id: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body,
        json: JSON.parse(body) as ReceivedWebhook['json'],
        verified: false,
        answered: 0,
        headerNames: Object.keys(req.headers),
        url: req.url ?? '',
      };
      webhook.verified = verifySignature(this.secret, webhook.id, webhook.timestamp, body, webhook.signature);
      if (this.stalled) {
        this.received.push(webhook);
        return;
      }
      const nth = this.forEvent(webhook.id).length + 1;
      webhook.answered = this.responder(webhook, nth);
      this.received.push(webhook);
      const answer = () => res.writeHead(webhook.answered, { 'content-type': 'text/plain' }).end('ok');
      if (this.answerDelayMs > 0) setTimeout(answer, this.answerDelayMs);
      else answer();
    });
  }
}
