import './infrastructure/runtime/node-version';
import 'reflect-metadata';
import * as path from 'node:path';
import { AppConfig } from './config/app-config';
import { projectRoot } from './config/env';
import { createApp } from './app.factory';
import { Metrics } from './infrastructure/metrics/metrics';
import { stopTelemetry } from './infrastructure/telemetry/telemetry-switch';

interface EmbeddedDb {
  url: string;
  stop: () => Promise<void>;
}

async function main(): Promise<void> {
  let config = AppConfig.load();
  let embedded: EmbeddedDb | undefined;
  if (!config.env.databaseUrl) {
    // No DATABASE_URL: bring up the PostgreSQL server shipped in node_modules, data in .data/pg.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS script located at run time
    const { startEmbeddedPostgres } = require(path.join(projectRoot(), 'scripts', 'embedded-db.js')) as {
      startEmbeddedPostgres: (o: { dataDir: string; port: number }) => Promise<EmbeddedDb>;
    };
    embedded = await startEmbeddedPostgres({ dataDir: config.env.embeddedPg.dir, port: config.env.embeddedPg.port });
    config = AppConfig.load({ ...process.env, DATABASE_URL: embedded.url });
  }
  const app = await createApp(config);
  const metricsPort = config.isProduction ? config.env.metricsPort : undefined;
  const metricsServer = metricsPort ? await app.get(Metrics).listenSeparately(config.env.metricsHost, metricsPort) : undefined;
  const shutdown = async () => {
    metricsServer?.close();
    await app.close();
    await embedded?.stop();
    await stopTelemetry();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  await app.listen({ host: config.env.host, port: config.env.port });
  process.stdout.write(`enrollment-service listening on ${config.env.publicUrl} (docs at ${config.env.publicUrl}/docs)\n`);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`enrollment-service failed to start: ${message}\n`);
  process.exit(1);
});
