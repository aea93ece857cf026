// The entry point's first import (src/main.ts), or `node --require` ahead of another entry point (the
// e2e tests' app process, the bench): tracing must patch `http` and `pg` before anything requires them
// (pg-boss requires pg as it is imported). Without OTEL_EXPORTER_OTLP_ENDPOINT the SDK is not even loaded.
import '../runtime/node-version';
import { tracingRequested } from './telemetry-switch';

if (tracingRequested(process.env)) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
  (require('./telemetry') as typeof import('./telemetry')).startTelemetry(process.env);
}
