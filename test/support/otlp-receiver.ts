import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  events?: Array<{ name: string; attributes?: OtlpAttribute[] }>;
  links?: Array<{ traceId: string; spanId: string; attributes?: OtlpAttribute[] }>;
}
export interface OtlpExport {
  contentType: string;
  body: Buffer;
}

/** A minimal OTLP/HTTP trace receiver on 127.0.0.1: records every export as sent, answers 200. */
export class OtlpReceiver {
  readonly exports: OtlpExport[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer((req, res) => receiver.handle(req).then(() => res.writeHead(200, { 'content-type': req.headers['content-type'] ?? '' }).end()));
    const receiver = new OtlpReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT names: the exporter appends /v1/traces. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Spans of every http/json export (OTLP JSON encoding: ids as hex). */
  jsonSpans(): OtlpSpan[] {
    type Body = { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
    return this.exports
      .filter((e) => e.contentType.startsWith('application/json'))
      .flatMap((e) => (JSON.parse(e.body.toString('utf8')) as Body).resourceSpans ?? [])
      .flatMap((r) => r.scopeSpans ?? [])
      .flatMap((s) => s.spans ?? []);
  }

  async waitFor<T>(find: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found) return found;
      if (Date.now() > deadline) throw new Error('the expected spans were not exported in time');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url === '/v1/traces') this.exports.push({ contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
  }
}
