import 'reflect-metadata';
import * as fs from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { Metrics } from './infrastructure/metrics/metrics';
import { buildOpenApiDocument } from './openapi';

/**
 * The document `/openapi.json` serves, without a database: Nest's preview mode scans the modules
 * and their decorators but instantiates no provider (no connection, no keys, no jobs).
 * Usage: `node dist/src/openapi-export.js [out-file]` (stdout without one).
 */
export async function exportOpenApiDocument(publicUrl = 'http://127.0.0.1:3000'): Promise<object> {
  const config = AppConfig.load({ ...process.env, APP_MODE: 'sandbox', PUBLIC_URL: publicUrl, DATABASE_URL: 'postgres://preview@127.0.0.1:1/preview' });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, new Metrics()), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app, config);
  } finally {
    await app.close();
  }
}

if (require.main === module) {
  exportOpenApiDocument(process.env.PUBLIC_URL)
    .then((document) => {
      const text = `${JSON.stringify(document, null, 2)}\n`;
      if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
      else process.stdout.write(text);
    })
    .catch((error: unknown) => {
      process.stderr.write(`openapi export failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
}
