import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import { AppModule } from './app.module';
import { jsonBodyHook } from './common/http/json-body';
import { sendError } from './common/http/exception.filter';
import { installRequestTimeout } from './common/http/request-timeout';
import { installGracefulClose } from './common/http/graceful-close';
import { unavailableFaultHook } from './common/context/sandbox-faults';
import { installRequestContext } from './common/context/request-scope';
import { ApiFastifyAdapter } from './common/http/api-fastify-adapter';
import { generateRequestId, RawWithRequestId, resolveRequestId } from './common/http/request-id';
import { createValidationPipe } from './common/validation/validation';
import { AppConfig } from './config/app-config';
import { pgPoolOf } from './infrastructure/database/data-source-options';
import { runMigrations } from './infrastructure/database/migrate';
import { drainPool } from './infrastructure/database/pool-drain';
import { createRootLogger, installRequestLogging, nestLogger } from './infrastructure/logging/logging';
import { Metrics } from './infrastructure/metrics/metrics';
import { installTokenFormChecks } from './modules/auth/token-form';
import { installTokenRateLimit } from './modules/auth/token-rate-limit';
import { EnrollmentEarlyReplay } from './modules/enrollment/controllers/enrollment-early-replay';
import { setupOpenApi } from './openapi';
import { installConsoleHttp } from './modules/care-console/console-http';

export const BODY_LIMIT_BYTES = 64 * 1024;

/** Builds the whole application (used by main.ts, the e2e tests and the benchmark). */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  if (!config.env.databaseUrl) throw new Error('DATABASE_URL must be resolved before createApp');
  await runMigrations(config.env.databaseUrl, config.env.dbSchema);
  const adapter = new ApiFastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (raw: RawWithRequestId) => generateRequestId(raw),
    logger: false,
    // Off unless TRUST_PROXY says the service sits behind a proxy: a forwarded address is then the source (rate limits).
    trustProxy: config.env.trustProxy,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // Fastify's own URL errors (undecodable %, over-long parameter) answer the envelope too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      sendError(error, request, reply, new NestLogger('Errors'), config.env.publicUrl),
  });
  const rootLogger = createRootLogger(config.env.logLevel);
  // First of all hooks: the request's context store, then (at the end) its log line.
  installRequestContext(adapter.getInstance(), config.isSandbox);
  installRequestLogging(adapter.getInstance(), rootLogger);
  const metrics = new Metrics();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, metrics), adapter, {
    bufferLogs: true,
    abortOnError: false,
    // The body's bytes stay on the request (`rawBody`): the validation memo knows a body by them.
    rawBody: true,
  });
  app.useLogger(nestLogger(rootLogger));
  // No enableShutdownHooks(): the entry point (main.ts) closes the app on SIGTERM/SIGINT itself, once.
  // Nest's signal listener would close it a second time in parallel, and that close would destroy
  // the pool while the first one still waits for running calls (see the onClose hook below).
  const fastify = app.getHttpAdapter().getInstance();
  metrics.install(fastify);
  const errors = new NestLogger('Errors');
  const requestContext = ClsServiceManager.getClsService();
  installRequestTimeout(fastify, config.env.requestTimeoutMs, (error, request, reply) => sendError(error, request, reply, errors, config.env.publicUrl));
  // The token route's strict form checks run before its rate limiter (both are that route's own hooks, in this order).
  installTokenFormChecks(fastify);
  installTokenRateLimit(fastify, config.env.tokenRateLimit, (error, request, reply) => sendError(error, request, reply, errors, config.env.publicUrl));
  // JSON only (and the token endpoint's form): any other body type is refused with 415.
  fastify.removeContentTypeParser('text/plain');
  fastify.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const requestId = resolveRequestId(request);
    void reply.header('x-request-id', requestId);
    requestContext.set('requestId', requestId);
    done();
  });
  if (config.isSandbox) fastify.addHook('preHandler', unavailableFaultHook);
  fastify.addHook('preValidation', jsonBodyHook);
  // After the hooks above (route hooks run after the global ones): an enrollment's identical retry answered from its stored answer.
  app.get(EnrollmentEarlyReplay).install(fastify);
  app.useGlobalPipes(createValidationPipe());
  // Closing: the calls still running (a client may have gone away) finish on their connections before the pool closes.
  const pool = pgPoolOf(app.get(DataSource));
  installGracefulClose(fastify, async () => {
    if (!(await drainPool(pool, config.env.requestTimeoutMs))) errors.warn('closing with database calls still running past REQUEST_TIMEOUT_MS');
  });
  await installConsoleHttp(app, config);
  setupOpenApi(app, config);
  await app.init();
  return app;
}
