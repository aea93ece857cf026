// First of all: the Node version check, then OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set,
// which must patch http and pg before anything requires them (pg-boss requires pg as it is imported).
import './infrastructure/telemetry/preload';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import * as path from 'node:path';
import { AppConfig } from './config/app-config';
import { projectRoot } from './config/env';
import { closeApp, createApp, serve } from './app.factory';
import { Metrics } from './infrastructure/metrics/metrics';
import { onStopSignals } from './infrastructure/runtime/stop-signals';
import { stopTelemetry } from './infrastructure/telemetry/telemetry-switch';
import { startupSummary } from './startup-summary';

interface EmbeddedDb {
  url: string;
  stop: () => Promise<void>;
}

async function main(): Promise<void> {
  let config = AppConfig.load();
  let embedded: Promise<EmbeddedDb> | undefined;
  let app: NestFastifyApplication | undefined;
  let metricsServer: Server | undefined;
  // Through the app's logger (pino, JSON lines): one line at start, one at a clean stop (CONTRACT section 16).
  const logger = new Logger('Service');
  /** The embedded server, once up (one still starting is waited for); undefined with DATABASE_URL or when its start failed. */
  const database = async () => embedded?.catch(() => undefined);
  // Set before anything starts: a signal during the start (a Ctrl-C while the database starts or the
  // app migrates) stops what is up so far, the embedded server included (it runs detached, so the
  // signal does not reach it).
  const shutdown = async (signal: NodeJS.Signals) => {
    try {
      metricsServer?.close();
      if (app) await closeApp(app);
      await (await database())?.stop();
      await stopTelemetry();
    } catch (error) {
      logger.error({ signal, errorName: (error as Error)?.name, msg: 'enrollment-service did not stop cleanly' });
      process.exit(1);
    }
    logger.log({ signal, msg: 'enrollment-service stopped cleanly' });
    process.exit(0);
  };
  onStopSignals(shutdown, (signal) => logger.log({ signal, msg: 'enrollment-service is already stopping' }));
  if (!config.env.databaseUrl) {
    // No DATABASE_URL: bring up the PostgreSQL server shipped in node_modules, data in .data/pg.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS script located at run time
    const { startEmbeddedPostgres } = require(path.join(projectRoot(), 'scripts', 'embedded-db.js')) as {
      startEmbeddedPostgres: (o: { dataDir: string; port: number; detached: boolean }) => Promise<EmbeddedDb>;
    };
    // Detached: a Ctrl-C reaches the service alone, which stops the database after its calls finished.
    embedded = startEmbeddedPostgres({ dataDir: config.env.embeddedPg.dir, port: config.env.embeddedPg.port, detached: true });
    config = AppConfig.load({ ...process.env, DATABASE_URL: (await embedded).url });
  }
  try {
    app = await createApp(config);
    const metricsPort = config.isProduction ? config.env.metricsPort : undefined;
    metricsServer = metricsPort
      ? await naming(
          'METRICS_HOST and METRICS_PORT',
          config.env.metricsHost,
          metricsPort,
          app.get(Metrics).listenSeparately(config.env.metricsHost, metricsPort),
        )
      : undefined;
    await naming('HOST and PORT', config.env.host, config.env.port, serve(app, { host: config.env.host, port: config.env.port }));
  } catch (error) {
    // A start that fails once the database is up (migrations, a listener) leaves nothing running:
    // the app's pools and job queue closed, the embedded PostgreSQL stopped (it outlived the process).
    metricsServer?.close();
    if (app) await closeApp(app).catch(() => undefined);
    await (await database())?.stop().catch(() => undefined);
    throw error;
  }
  logger.log({ ...startupSummary(app, config, metricsServer, embedded !== undefined), msg: 'enrollment-service started' });
}

/** A listener that could not start (an address that does not resolve, a port in use) names the settings that chose it. */
async function naming<T>(settings: string, host: string, port: number, listening: Promise<T>): Promise<T> {
  try {
    return await listening;
  } catch (error) {
    throw new Error(`cannot listen on ${host}:${port} (${settings}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`enrollment-service failed to start: ${message}\n`);
  process.exit(1);
});
