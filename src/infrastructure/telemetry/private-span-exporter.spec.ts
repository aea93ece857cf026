import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ReadableSpan, SimpleSpanProcessor, SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { PrivateSpanExporter } from './private-span-exporter';

describe(PrivateSpanExporter.name, () => {
  let next: jest.Mocked<SpanExporter>;
  let sut: PrivateSpanExporter;
  let provider: TracerProvider;

  beforeEach(() => {
    next = { export: jest.fn((_spans, done) => done({ code: 0 })), shutdown: jest.fn(() => Promise.resolve()), forceFlush: jest.fn(() => Promise.resolve()) };
    sut = new PrivateSpanExporter(next);
    provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: sut })] });
  });

  afterEach(() => provider.shutdown());

  const exported = (): ReadableSpan => next.export.mock.calls[0][0][0];

  it('lets through the allow-listed attributes only: no client address, user agent, query or parameter values', () => {
    const span = provider.getTracer('test').startSpan('GET', {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/v1/programs/:programCode/enrollments',
        'url.path': '/v1/programs/sandbox/enrollments',
        'url.query': 'ssn=123456789',
        'client.address': '203.0.113.9',
        'user_agent.original': 'partner-sdk/1',
        'server.address': 'enrollment.example',
        'db.postgresql.values': ['123456789'],
      },
    });
    span.end();

    expect(exported().attributes).toEqual({
      'http.request.method': 'GET',
      'http.route': '/v1/programs/:programCode/enrollments',
      'url.path': '/v1/programs/sandbox/enrollments',
    });
  });

  it("keeps a database span's server address, drops error messages from its status and events", () => {
    const span = provider.getTracer('test').startSpan('pg.query', {
      kind: SpanKind.CLIENT,
      attributes: { 'db.query.text': 'select 1 where $1', 'server.address': 'db.internal' },
    });
    span.recordException(Object.assign(new Error('invalid input syntax for type uuid: "Jane Doe"'), { name: 'QueryFailedError' }));
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'invalid input syntax for type uuid: "Jane Doe"' });
    span.end();

    const sent = exported();
    expect(sent.attributes).toEqual({ 'db.query.text': 'select 1 where $1', 'server.address': 'db.internal' });
    expect(sent.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(sent.events.map((e) => e.attributes)).toEqual([{ 'exception.type': 'QueryFailedError' }]);
    expect(JSON.stringify(sent.events)).not.toContain('Jane Doe');
  });

  it('keeps the span context and its links, without link attributes', () => {
    const link = { context: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }, attributes: { note: 'x' } };
    const span = provider.getTracer('test').startSpan('webhook delivery', { root: true, links: [link] });
    span.end();

    const sent = exported();
    expect(sent.spanContext()).toEqual(span.spanContext());
    expect(sent.links).toEqual([{ context: link.context }]);
  });
});
