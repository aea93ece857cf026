// Entry point of a second app *process* for multi-process tests: boots the real app with the
// given environment on a loopback port and prints "READY <port>" once it listens.
import 'reflect-metadata';
import { closeApp, createApp, serve } from '../../src/app.factory';
import { AppConfig } from '../../src/config/app-config';
import { onStopSignals } from '../../src/infrastructure/runtime/stop-signals';
import { stopTelemetry } from '../../src/infrastructure/telemetry/telemetry-switch';

async function main(): Promise<void> {
  const app = await createApp(AppConfig.load(process.env));
  await serve(app, { host: '127.0.0.1', port: 0 });
  const { port } = app.getHttpServer().address() as { port: number };
  process.stdout.write(`READY ${port}\n`);
  const stop = async () => {
    await closeApp(app);
    await stopTelemetry();
    process.exit(0);
  };
  onStopSignals(stop, () => undefined);
}

main().catch((error: unknown) => {
  process.stderr.write(`app process failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
