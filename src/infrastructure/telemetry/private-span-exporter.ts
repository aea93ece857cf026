import type { Attributes } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { privatePath } from '../../common/http/private-path';

/**
 * Attributes a span may carry out of the process (CONTRACT section 16): method, route pattern,
 * path without its query (a segment that reads as personal data redacted, `privatePath`), status; the SQL text (placeholders, never values) and where it ran; the
 * webhook attempt's own facts. Anything else an instrumentation adds (client address, user agent,
 * query string, a future attribute) is dropped here, so privacy does not hang on each one's options.
 */
const ALLOWED = new Set([
  'http.request.method',
  'http.response.status_code',
  'http.route',
  'url.scheme',
  'url.path',
  'network.protocol.version',
  'server.port',
  'error.type',
  'db.system.name',
  'db.namespace',
  'db.query.text',
  'db.operation.name',
  'db.collection.name',
  'db.postgresql.plan',
  'db.postgresql.idle.timeout.millis',
  'db.postgresql.max.client',
  'webhook.event_id',
  'webhook.event_type',
  'webhook.attempt',
  'webhook.outcome',
  'webhook.delivery_outcome',
]);
/** A server span's `server.address` is the Host header a client sent; a database span's is the database host. */
const ALLOWED_OUTSIDE_SERVER = new Set(['server.address']);
/** An exception event keeps its type only: a driver's message can quote the value it refused. */
const ALLOWED_IN_EVENTS = new Set(['exception.type']);

/** Wraps the OTLP exporter: every span leaves with allow-listed attributes only, events and status without messages. */
export class PrivateSpanExporter implements SpanExporter {
  constructor(private readonly next: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.next.export(spans.map(privateView), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush?.() ?? Promise.resolve();
  }
}

export function privateView(span: ReadableSpan): ReadableSpan {
  const allowedHere = (key: string) => ALLOWED.has(key) || (span.kind !== SpanKind.SERVER && ALLOWED_OUTSIDE_SERVER.has(key));
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: pick(span.attributes, allowedHere),
    links: span.links.map((link) => ({ context: link.context })),
    events: span.events.map((event) => ({ name: event.name, time: event.time, attributes: pick(event.attributes ?? {}, (key) => ALLOWED_IN_EVENTS.has(key)) })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

function pick(attributes: Attributes, keep: (key: string) => boolean): Attributes {
  const kept: Attributes = {};
  for (const [key, value] of Object.entries(attributes))
    if (keep(key)) kept[key] = key === 'url.path' && typeof value === 'string' ? privatePath(value) : value;
  return kept;
}
