import { Attributes, context, Span, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { FastifyInstance } from 'fastify';

const TRACER = 'enrollment-service';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The W3C `traceparent` of the span running now, to be stored beside work done later (an outbox
 * row), or null when no trace is active (tracing off, or a job outside any call).
 */
export function currentTraceparent(): string | null {
  const span = trace.getSpanContext(context.active());
  if (!span || !trace.isSpanContextValid(span)) return null;
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')}`;
}

/**
 * Runs `work` in a new root span linked to the stored `traceparent`: the work belongs to its own
 * trace (an attempt may come minutes later, from another instance) and points back to the call
 * that caused it. A no-op span when tracing is off.
 */
export async function inLinkedSpan<T>(name: string, traceparent: string | null, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  const linked = traceparent ? TRACEPARENT.exec(traceparent) : null;
  const links = linked ? [{ context: { traceId: linked[1], spanId: linked[2], traceFlags: parseInt(linked[3], 16), isRemote: true } }] : [];
  return trace.getTracer(TRACER).startActiveSpan(name, { kind: SpanKind.CLIENT, root: true, links, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Names the HTTP server span by its route pattern (`POST /programs/:programCode/enrollments`) and
 * sets `http.route`, through the HTTP instrumentation's documented RPC metadata: patterns, never
 * URLs, so identifiers stay out of span names. Nothing happens when tracing is off.
 */
export function installTraceRoute(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const metadata = getRPCMetadata(context.active());
    // routeOptions builds an object on each read: read it only when a server span is there to name.
    if (metadata?.type !== RPCType.HTTP) return done();
    const route = request.routeOptions?.url;
    if (route) metadata.route = route;
    done();
  });
}
