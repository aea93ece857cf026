import 'reflect-metadata';
import * as fs from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { Metrics } from './infrastructure/metrics/metrics';
import { buildOpenApiDocuments, OpenApiDocuments } from './openapi';

/**
 * The documents `/openapi.json` and `/openapi-care.json` serve, without a database: Nest's preview
 * mode scans the modules and their decorators but instantiates no provider (no connection, no keys, no jobs).
 * Usage: `node dist/src/openapi-export.js [--care] [out-file]` (the partner document, or with
 * --care the care and operations document; stdout without a file).
 */
export async function exportOpenApiDocuments(publicUrl = 'http://127.0.0.1:3000'): Promise<OpenApiDocuments> {
  const config = AppConfig.load({ ...process.env, APP_MODE: 'sandbox', PUBLIC_URL: publicUrl, DATABASE_URL: 'postgres://preview@127.0.0.1:1/preview' });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, new Metrics(), null), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocuments(app, config);
  } finally {
    await app.close();
  }
}

/** The partner document (`/openapi.json`), the one the SDK is generated from. */
export async function exportOpenApiDocument(publicUrl?: string): Promise<object> {
  return (await exportOpenApiDocuments(publicUrl)).partner;
}

if (require.main === module) {
  const care = process.argv.includes('--care');
  const [file] = process.argv.slice(2).filter((arg) => arg !== '--care');
  exportOpenApiDocuments(process.env.PUBLIC_URL)
    .then((documents) => {
      const text = `${JSON.stringify(care ? documents.care : documents.partner, null, 2)}\n`;
      if (file) fs.writeFileSync(file, text);
      else process.stdout.write(text);
    })
    .catch((error: unknown) => {
      process.stderr.write(`openapi export failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
}
