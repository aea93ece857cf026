import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { envDetector, hostDetector } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { PrivateSpanExporter } from './private-span-exporter';
import { onTelemetryStop, tracingRequested } from './telemetry-switch';

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (CONTRACT section 16), and
 * does nothing at all otherwise: no SDK, no patched modules, no exporter aiming at localhost. Runs
 * before anything requires `pg` (preload.ts), so it reads the standard OTEL_* variables itself:
 * the SDK and the exporters read the rest (headers, timeouts, sampler, resource, batch sizes).
 */
export function startTelemetry(env: NodeJS.ProcessEnv): void {
  if (!tracingRequested(env)) return;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    process.stderr.write(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported (http/protobuf or http/json): exporting with http/protobuf\n`);
  }
  const exporter = protocol === 'http/json' ? new OtlpJsonTraceExporter() : new OtlpProtoTraceExporter();
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) wins when given.
    serviceName: (env.OTEL_SERVICE_NAME ?? env.OTEL_RESOURCE_ATTRIBUTES?.includes('service.name=')) ? undefined : 'enrollment-service',
    // The resource is what the operator names (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) and the
    // host's name; not the SDK's default process and OS detectors, which export the command line
    // (whatever was passed on it), the executable's path, the user and the kernel version.
    resourceDetectors: [envDetector, hostDetector],
    traceExporter: new PrivateSpanExporter(exporter),
    // Metrics are Prometheus (/metrics); logs stay pino's lines. Neither goes out over OTLP.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Every incoming request, probes and scrapes included (CONTRACT section 16: one span per HTTP request).
      new HttpInstrumentation({
        // Outgoing calls go to partners and identity providers: no trace headers leave the service.
        disableOutgoingRequestInstrumentation: true,
      }),
      // No parameter values (enhancedDatabaseReporting); statements outside a traced call (the
      // outbox poller, pg-boss polling) would be a root span every few hundred milliseconds.
      new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
      // trace_id and span_id on the log lines of a traced call; the lines themselves stay local.
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
  onTelemetryStop(() => sdk.shutdown());
}
