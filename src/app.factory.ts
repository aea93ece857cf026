import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppModule } from './app.module';
import { FORM_MEDIA_TYPE, parseFormBody } from './common/http/form-body';
import { jsonBodyHook, jsonBodyParser } from './common/http/json-body';
import { sendError } from './common/http/exception.filter';
import { installRequestTimeout } from './common/http/request-timeout';
import { setRouteBodyLimit } from './common/http/route-hooks';
import { installGracefulClose } from './common/http/graceful-close';
import { sandboxFaultHook } from './common/context/sandbox-faults';
import { ENROLLMENT_SANDBOX_FAULTS } from './modules/enrollment/services/enrollment-points';
import { installRequestContext } from './common/context/request-scope';
import { clientErrorHandler, HTTP_SERVER_OPTIONS, installHostCheck } from './common/http/client-error';
import { installEnvelope } from './common/http/answer';
import { incomingRequestId } from './common/http/request-id';
import { createValidationPipe } from './common/validation/validation';
import { AppConfig } from './config/app-config';
import { KeyStore } from './infrastructure/crypto/key-store';
import { DatabasePools } from './infrastructure/database/database-pools';
import { runMigrations } from './infrastructure/database/migrate';
import { BackgroundWork } from './infrastructure/queue/background-work';
import { drainPool } from './infrastructure/database/pool-drain';
import { createRootLogger, installRequestLogging, nestLogger } from './infrastructure/logging/logging';
import { Metrics } from './infrastructure/metrics/metrics';
import { installTraceRoute } from './infrastructure/telemetry/trace-context';
import { installTokenFormChecks } from './modules/auth/token-form';
import { TOKEN_PATH } from './common/auth/token-path';
import { installTokenRateLimit, TokenRateLimits } from './modules/auth/token-rate-limit';
import { installWebhookCallLimitHeaders, LIMITED_WEBHOOK_ROUTES, WebhookCallLimiter } from './modules/webhooks/webhook-call-limit';
import rateLimit from '@fastify/rate-limit';
import { setupOpenApi } from './openapi';
import { installConsoleHttp } from './modules/care-console/console-http';
import { SCAN_CAPTURE_BODY_LIMIT_BYTES, SCAN_CAPTURE_ROUTE } from './modules/enrollment/controllers/scan-capture.controller';

export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Closes the app in the order an instance behind a load balancer needs (docs/operations.md,
 * "Starting and stopping"): the partner port first, so from this moment no new connection is taken, a request on
 * an open one is answered 503/503/2 with Connection: close, and the requests in flight and the calls
 * that outlive them finish (graceful-close.ts); then Nest's close, with the modules' background work
 * (webhook attempts in flight, the job queue) and the database pool. Nest's `close()` alone closes the
 * port last, after that work, which may take WEBHOOK_TIMEOUT_MS, while the instance still takes
 * requests and answers ready. Closing the port a second time (inside Nest's close) does nothing.
 */
/**
 * Puts the app on its partner port, then begins its background work (job workers, the webhook
 * poller; BackgroundWork): an instance whose listener cannot start does none of it.
 */
export async function serve(app: NestFastifyApplication, address: { host: string; port: number }): Promise<void> {
  await app.listen(address);
  app.get(BackgroundWork).begin();
}

export async function closeApp(app: NestFastifyApplication): Promise<void> {
  await app.getHttpAdapter().close();
  await app.close();
}

/** Builds the whole application (used by main.ts, the e2e tests and the benchmark). */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  if (!config.env.databaseUrl) throw new Error('DATABASE_URL must be resolved before createApp');
  // The keys first: a bad SERVICE_KEYS is refused before the database is touched, in the start's
  // one line (from a Nest provider, Nest would print its own error with a stack first).
  const keys = await KeyStore.load(config);
  await runMigrations(config.env.databaseUrl, config.env.dbSchema);
  const rootLogger = createRootLogger(config.env.logLevel);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // Identifiers in paths are opaque strings (CONTRACT section 1): one of any length a URL can carry
    // reaches its route (an unknown account is Account Not Found), not the 100 characters after
    // which Fastify would answer as for an unknown route. No route has a regular-expression parameter.
    routerOptions: { maxParamLength: 16 * 1024 },
    genReqId: incomingRequestId,
    logger: false,
    // Off unless TRUST_PROXY says the service sits behind a proxy: a forwarded address is then the source (rate limits).
    trustProxy: config.env.trustProxy,
    // For any parser of Fastify's that would use them; the app's JSON parser (jsonBodyParser) leaves
    // such keys to the body pipes, which refuse them as unknown properties.
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Off: its 503 has no envelope and no X-Request-Id; installGracefulClose answers while closing.
    return503OnClosing: false,
    // Fastify's own URL errors (undecodable %, over-long parameter) answer the envelope too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      sendError(error, request, reply, new NestLogger('Errors'), config.env.publicUrl),
    // And what Node's HTTP parser refuses before a request exists (oversized headers, broken framing).
    clientErrorHandler: clientErrorHandler(rootLogger, config.env.publicUrl),
    // A request without Host reaches the app, which answers it the envelope (installHostCheck).
    http: HTTP_SERVER_OPTIONS,
  });
  // First of all hooks: the request's context store and its id, then (at the end) its log line.
  installRequestContext(adapter.getInstance(), config.isSandbox, config.env.publicUrl);
  installRequestLogging(adapter.getInstance(), rootLogger);
  const metrics = new Metrics({ rateLimitedRoutes: [TOKEN_PATH, ...LIMITED_WEBHOOK_ROUTES] });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, metrics, keys), adapter, {
    bufferLogs: true,
    abortOnError: false,
    // The body's bytes stay on the request (`rawBody`): the idempotency replay knows a retry by them.
    rawBody: true,
  });
  app.useLogger(nestLogger(rootLogger));
  // No enableShutdownHooks(): the entry point (main.ts) closes the app on SIGTERM/SIGINT itself, once.
  // Nest's signal listener would close it a second time in parallel, and that close would destroy
  // the pool while the first one still waits for running calls (see the onClose hook below).
  const fastify = app.getHttpAdapter().getInstance();
  metrics.install(fastify);
  installTraceRoute(fastify);
  const errors = new NestLogger('Errors');
  const send = (error: unknown, request: FastifyRequest, reply: FastifyReply) => sendError(error, request, reply, errors, config.env.publicUrl);
  installHostCheck(fastify, send);
  installRequestTimeout(fastify, config.env.requestTimeoutMs, send);
  // The token route's own hooks: its address limit first (every request counts), then its strict form
  // checks (onRequest, preValidation), then the client's limits (preHandler), in this order.
  installTokenRateLimit(fastify, app.get(TokenRateLimits), send);
  installTokenFormChecks(fastify, send);
  // @fastify/rate-limit's counter (`createRateLimit`) for the webhook test and redeliver limit; not global.
  // Registered here, with the app's other Fastify set-up, not from a Nest lifecycle hook: registered
  // during Nest's init it boots ahead of Nest's own error handling of body parsing.
  await fastify.register(rateLimit, { global: false });
  installWebhookCallLimitHeaders(fastify, app.get(WebhookCallLimiter));
  // JSON only, and a form where a route declares one (@AcceptsForm): any other body is refused with 415.
  fastify.removeContentTypeParser('text/plain');
  app.useBodyParser('application/json', { bodyLimit: BODY_LIMIT_BYTES }, jsonBodyParser(fastify));
  app.useBodyParser(FORM_MEDIA_TYPE, { bodyLimit: BODY_LIMIT_BYTES }, parseFormBody);
  // 64 KiB for every body (BODY_LIMIT_BYTES) but the scan capture's identity document images.
  setRouteBodyLimit(fastify, 'POST', SCAN_CAPTURE_ROUTE, SCAN_CAPTURE_BODY_LIMIT_BYTES);
  if (config.isSandbox) fastify.addHook('preHandler', sandboxFaultHook(ENROLLMENT_SANDBOX_FAULTS));
  fastify.addHook('preValidation', jsonBodyHook);
  installEnvelope(fastify);
  app.useGlobalPipes(createValidationPipe());
  // Closing: the calls still running (a client may have gone away) finish on their connections before the pool closes.
  const pool = app.get(DatabasePools).pool();
  installGracefulClose(
    fastify,
    async () => {
      if (!(await drainPool(pool, config.env.requestTimeoutMs))) errors.warn('closing with database calls still running past REQUEST_TIMEOUT_MS');
    },
    send,
  );
  await installConsoleHttp(app, config);
  setupOpenApi(app, config);
  await app.init();
  return app;
}
