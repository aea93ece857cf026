import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { AppProcess, spawnAppProcess } from './support/app-process-runner';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { startMain } from './support/main-process';
import { OtlpAttribute, OtlpReceiver, OtlpSpan } from './support/otlp-receiver';
import { startTestApp, TestApp, uniqueSchema } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const ENROLL = '/v1/programs/sandbox/enrollments';
const SERVER = 2;

function traceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

function attribute(span: OtlpSpan, key: string): unknown {
  const found = span.attributes?.find((a) => a.key === key);
  return found ? Object.values(found.value)[0] : undefined;
}

/** Every attribute value exported anywhere: span, event and link attributes. */
function everyValue(spans: OtlpSpan[]): string[] {
  const values = (attributes: OtlpAttribute[] = []) => attributes.map((a) => `${a.key}=${JSON.stringify(a.value)}`);
  return spans.flatMap((s) => [
    s.name,
    ...values(s.attributes),
    ...(s.events ?? []).flatMap((e) => values(e.attributes)),
    ...(s.links ?? []).flatMap((l) => values(l.attributes)),
  ]);
}

/** A request whose personal data is easy to find if it leaked: distinctive names, SSN, DOB, email, street. */
function personalRequest() {
  // Letters only (names allow no digits), distinctive enough to be found anywhere.
  const marker = [...randomBytes(6)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
  const request = EnrollmentRequestFactory.build({
    encryptedUserData: {
      firstName: `Quillon${marker}`,
      lastName: `Zebrowski${marker}`,
      identifyingData: { dateOfBirth: '1987-11-23' },
      email: { emailAddress: `leak-${marker}@example.com` },
      addresses: [{ type: 'home', isDefault: true, addressLine1: `77 Marker${marker} Road`, city: 'Austin', state: 'TX', zipCode: '78701', countryCode: 'US' }],
    },
  });
  const ssn = String(request.encryptedUserData.identifyingData.ssn);
  const secrets = [
    `Quillon${marker}`,
    `Zebrowski${marker}`,
    '1987-11-23',
    `leak-${marker}`,
    `Marker${marker}`,
    ssn,
    `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`,
    String(request.requestId),
  ];
  return { request, secrets };
}

describe('Tracing (e2e, CONTRACT section 16)', () => {
  let otlp: OtlpReceiver;
  let webhooks: WebhookReceiver;
  let producer: TestApp;
  const processes: AppProcess[] = [];

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    webhooks = await WebhookReceiver.start();
    // The in-process app only migrates the schema and delivers nothing; the traced child processes do the work.
    producer = await startTestApp('telemetry', { webhookUrl: webhooks.url, webhookSecret: webhooks.secret, env: { JOBS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    for (const child of processes) await child.stop();
    await producer.close();
    await webhooks.close();
    await otlp.close();
  });

  /** One traced process at a time: the one that wrote an event is the one that delivers it. */
  async function tracedProcess(protocol: 'http/json' | 'http/protobuf', env: Record<string, string> = {}): Promise<AppProcess> {
    for (const previous of processes.splice(0)) await previous.stop();
    const child = await spawnAppProcess(producer, {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      JOBS_ENABLED: 'true',
    });
    processes.push(child);
    return child;
  }

  it('continues an incoming traceparent: the request, its SQL and the webhook attempt it caused, with no personal data (http/json)', async () => {
    const child = await tracedProcess('http/json');
    const trace = traceparent();
    const { request, secrets } = personalRequest();
    const res = await child.client('acme').post(ENROLL, request, { headers: { traceparent: trace.header } });
    expect(res.status).toBe(200);
    // A query string on a traced call is not recorded either.
    const querySecret = `q${randomBytes(6).toString('hex')}`;
    await child.client('acme').get(`/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000?probe=${querySecret}`, {
      headers: { traceparent: traceparent().header },
    });
    // Nor a person's number or email pasted into a path by mistake (a 404 route, or a segment the route takes).
    const pathSecrets = ['271-83-4626', '2718346270', 'maria.path@example.com'];
    for (const secret of pathSecrets) {
      const pasted = traceparent();
      await child.client('acme').get(`/v1/programs/sandbox/enrollments/accounts/${secret}`, { headers: { traceparent: pasted.header } });
      const span = await otlp.waitFor(() => otlp.jsonSpans().find((s) => s.traceId === pasted.traceId && s.kind === SERVER));
      expect(attribute(span, 'url.path')).toBe('/v1/programs/sandbox/enrollments/accounts/[redacted]');
    }

    const server = await otlp.waitFor(() => otlp.jsonSpans().find((s) => s.traceId === trace.traceId && s.kind === SERVER));
    expect(server.parentSpanId).toBe(trace.spanId);
    expect(server.name).toBe('POST /v1/programs/:programCode/enrollments');
    expect(attribute(server, 'http.route')).toBe('/v1/programs/:programCode/enrollments');
    expect(Number(attribute(server, 'http.response.status_code'))).toBe(200);

    const statements = otlp.jsonSpans().filter((s) => s.traceId === trace.traceId && attribute(s, 'db.query.text') !== undefined);
    expect(statements.length).toBeGreaterThan(0);
    // Placeholders, never values.
    expect(statements.some((s) => /\$1/.test(String(attribute(s, 'db.query.text'))))).toBe(true);

    const delivery = await otlp.waitFor(() => otlp.jsonSpans().find((s) => s.name === 'webhook delivery' && s.links?.some((l) => l.traceId === trace.traceId)));
    expect(delivery.traceId).not.toBe(trace.traceId);
    expect(attribute(delivery, 'webhook.outcome')).toBe('delivered');
    expect(attribute(delivery, 'webhook.delivery_outcome')).toBe('delivered');
    // The partner's request carries no trace header (CONTRACT section 16).
    const eventId = String(attribute(delivery, 'webhook.event_id'));
    const [sent] = await webhooks.waitFor(() => webhooks.forEvent(eventId).length > 0).then(() => webhooks.forEvent(eventId));
    expect(sent.headerNames.filter((name) => /trace|baggage/.test(name))).toEqual([]);

    await otlp.waitFor(() =>
      otlp.jsonSpans().some((s) => attribute(s, 'url.path') === '/v1/programs/sandbox/enrollments/accounts/00000000-0000-4000-8000-000000000000'),
    );
    const exported = everyValue(otlp.jsonSpans()).join('\n');
    for (const secret of [...secrets, ...pathSecrets, querySecret, 'probe=']) expect(exported).not.toContain(secret);
    // Nor in anything else sent (resource attributes included).
    const raw = otlp.exports.map((e) => e.body.toString('utf8')).join('\n');
    for (const secret of [...secrets, querySecret]) expect(raw).not.toContain(secret);
    // No client address or user agent either.
    expect(exported).not.toMatch(/client\.address|user_agent|network\.peer/);
    // The resource: the service's name, the SDK's and the host's name; never the process's command line,
    // executable, user or the OS (the SDK's default detectors export them).
    type Resource = { resourceSpans?: Array<{ resource?: { attributes?: Array<{ key: string }> } }> };
    const resourceKeys = new Set(
      otlp.exports
        .filter((e) => e.contentType.startsWith('application/json'))
        .flatMap((e) => (JSON.parse(e.body.toString('utf8')) as Resource).resourceSpans ?? [])
        .flatMap((r) => r.resource?.attributes ?? [])
        .map((a) => a.key),
    );
    expect(resourceKeys.has('service.name')).toBe(true);
    expect([...resourceKeys].filter((key) => !/^(service\.name|telemetry\.sdk\.\w+|host\.(name|arch|id))$/.test(key))).toEqual([]);

    // One span per HTTP request: the operators' probes and scrapes too.
    for (const probe of ['/health/live', '/metrics']) {
      const probeTrace = traceparent();
      expect((await fetch(`${child.baseUrl}${probe}`, { headers: { traceparent: probeTrace.header } })).status).toBe(200);
      const span = await otlp.waitFor(() => otlp.jsonSpans().find((s) => s.traceId === probeTrace.traceId && s.kind === SERVER));
      expect(attribute(span, 'url.path')).toBe(probe);
    }
  }, 120_000);

  it('exports nothing of the background work: no pg-boss job spans, no statements outside a call (operations-observability.md)', async () => {
    const before = otlp.jsonSpans().length;
    await tracedProcess('http/json');
    // pg-boss fetches its queues every second or two: an idle few seconds would export its spans.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const since = otlp.jsonSpans().slice(before);
    const traced = new Set(since.filter((span) => span.kind === SERVER).map((span) => span.traceId));
    expect(since.filter((span) => !traced.has(span.traceId)).map((span) => span.name)).toEqual([]);
  }, 60_000);

  it('exports http/protobuf by default, the continued trace id inside', async () => {
    const child = await tracedProcess('http/protobuf');
    const trace = traceparent();
    const { request, secrets } = personalRequest();
    const res = await child.client('acme').post(ENROLL, request, { headers: { traceparent: trace.header } });
    expect(res.status).toBe(200);
    const traceIdBytes = Buffer.from(trace.traceId, 'hex');
    await otlp.waitFor(() => otlp.exports.some((e) => e.contentType === 'application/x-protobuf' && e.body.includes(traceIdBytes)));
    const protobuf = Buffer.concat(otlp.exports.filter((e) => e.contentType === 'application/x-protobuf').map((e) => e.body));
    // Protobuf carries strings as UTF-8 bytes: a leaked value would be found as is.
    for (const secret of secrets) expect(protobuf.includes(Buffer.from(secret))).toBe(false);
  }, 120_000);

  it("every log line of a traced request carries its trace_id; its request line the server span's span_id", async () => {
    const child = await tracedProcess('http/json', { LOG_LEVEL: 'info' });
    const trace = traceparent();
    const { request } = personalRequest();
    const res = await child.client('acme').post(ENROLL, request, { headers: { traceparent: trace.header } });
    expect(res.status).toBe(200);
    const server = await otlp.waitFor(() => otlp.jsonSpans().find((s) => s.traceId === trace.traceId && s.kind === SERVER));
    const lines = await otlp.waitFor(() => {
      const found = child
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { requestId?: string; msg?: string; trace_id?: string; span_id?: string })
        .filter((l) => l.requestId === res.body.requestId);
      return found.some((l) => l.msg === 'request completed') ? found : undefined;
    });
    for (const line of lines) expect(line.trace_id).toBe(trace.traceId);
    expect(lines.find((l) => l.msg === 'request completed')).toMatchObject({ trace_id: server.traceId, span_id: server.spanId });
  }, 120_000);

  it('log lines written inside a traced operation carry its trace_id and span_id', async () => {
    const child = await tracedProcess('http/json', { LOG_LEVEL: 'warn' });
    webhooks.respond(() => 500);
    try {
      const trace = traceparent();
      const res = await child.client('acme').post('/v1/webhooks/test', { eventType: 'transaction' }, { headers: { traceparent: trace.header } });
      expect(res.status).toBe(200);
      const delivery = await otlp.waitFor(() =>
        otlp.jsonSpans().find((s) => s.name === 'webhook delivery' && s.links?.some((l) => l.traceId === trace.traceId)),
      );
      const line = await otlp.waitFor(() =>
        child
          .output()
          .split('\n')
          .filter((l) => l.includes('webhook attempt failed'))
          .map((l) => JSON.parse(l) as { trace_id?: string; span_id?: string })
          .find((l) => l.trace_id === delivery.traceId),
      );
      expect(line.span_id).toBe(delivery.spanId);
    } finally {
      webhooks.respond(() => 200);
    }
  }, 120_000);

  it('traces a process started as `node dist/src/main.js`, without the preload flag, and its start-up line says so', async () => {
    const { child, output, exited } = startMain({
      APP_MODE: 'sandbox',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: path.join(process.env.TEST_RUN_DIR as string, uniqueSchema('main-traced')),
      DATABASE_URL: process.env.DATABASE_URL as string,
      DB_SCHEMA: uniqueSchema('main_traced'),
      JOBS_ENABLED: 'false',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const started = await otlp.waitFor(
        () =>
          output.out
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as { msg?: string; tracing?: string; listeners?: { api: string } })
            .find((l) => l.msg === 'enrollment-service started') ??
          (child.exitCode !== null && { msg: `exited: ${output.err}` }),
        60_000,
      );
      expect(started).toMatchObject({ msg: 'enrollment-service started', tracing: 'on' });
      const trace = traceparent();
      const res = await fetch(`http://${started.listeners?.api}/health/live`, { headers: { traceparent: trace.header } });
      expect(res.status).toBe(200);
      await otlp.waitFor(() => otlp.jsonSpans().find((s) => s.traceId === trace.traceId && s.kind === SERVER));
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);

  it('loads no part of the SDK without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const root = path.resolve(__dirname, '..');
    const probe = `require('pg'); require('node:http'); console.log(Object.keys(require.cache).filter((k) => k.includes('@opentelemetry')).length)`;
    const run = (env: NodeJS.ProcessEnv) =>
      promisify(execFile)(
        process.execPath,
        ['-r', 'ts-node/register/transpile-only', '-r', path.join(root, 'src/infrastructure/telemetry/preload.ts'), '-e', probe],
        {
          cwd: root,
          env: { PATH: process.env.PATH, TS_NODE_PROJECT: path.join(root, 'tsconfig.spec.json'), ...env },
        },
      );
    expect(Number((await run({})).stdout.trim())).toBe(0);
    // The same probe with an endpoint: the count above would have seen the SDK.
    expect(Number((await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint })).stdout.trim())).toBeGreaterThan(0);
  }, 60_000);
});
