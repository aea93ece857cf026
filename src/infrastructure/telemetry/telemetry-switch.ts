/**
 * Whether tracing runs, decided from the standard variables before anything else loads (the SDK is
 * not even required otherwise), and the way to flush it at shutdown without loading it.
 * CONTRACT section 16: no OTEL_EXPORTER_OTLP_ENDPOINT, no tracing.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT) && env.OTEL_SDK_DISABLED !== 'true';
}

let stop: (() => Promise<void>) | undefined;

export function onTelemetryStop(fn: () => Promise<void>): void {
  stop = fn;
}

/** Whether the SDK was started in this process (what the start-up line reports, not what was asked). */
export function tracingStarted(): boolean {
  return stop !== undefined;
}

/** Exports the spans still buffered; called once the app has closed. Nothing to do when tracing is off. */
export async function stopTelemetry(): Promise<void> {
  const current = stop;
  stop = undefined;
  await current?.().catch(() => undefined);
}
