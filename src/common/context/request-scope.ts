import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import { TOKEN_PATH } from '../auth/token-path';
import { currentRequestId, REQUEST_ID_HEADER, resolveRequestId } from '../http/request-id';
import { keepStore, storeOf, type RequestContextStore } from './request-context';
import { parseSandboxFaults, SANDBOX_FAULT_HEADER, SANDBOX_FAULTS } from './sandbox-faults';

const NO_FAULTS: readonly string[] = Object.freeze([]);

/**
 * RFC 6797's `Strict-Transport-Security`, on every answer of a service whose PUBLIC_URL is https (as
 * production's must be): a browser that reached it once (the care console's agents) uses https only,
 * for a year. Without includeSubDomains: the issuer's other hosts are not this service's to decide.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** Whether answers carry STRICT_TRANSPORT_SECURITY: the service is reached over https. */
export function servedOverHttps(publicUrl: string): boolean {
  return publicUrl.startsWith('https://');
}

/**
 * The headers every answer carries (CONTRACT section 1): its `X-Request-Id`, and under /v1 and on the
 * token path (whatever the method) `Cache-Control: no-store`; `X-Content-Type-Options: nosniff`
 * (no browser reads a JSON answer as anything but its declared type; docs/security.md); and over
 * https, `Strict-Transport-Security`. Set by the onSend hook below, and by the error path of
 * Fastify's own URL errors, which answer before any hook runs.
 */
export function contextHeaders(request: FastifyRequest, https: boolean): Record<string, string> {
  const url = request.url;
  const api = url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?') || url === TOKEN_PATH || url.startsWith(`${TOKEN_PATH}?`);
  const headers: Record<string, string> = api
    ? { [REQUEST_ID_HEADER]: currentRequestId(request), 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }
    : { [REQUEST_ID_HEADER]: currentRequestId(request), 'x-content-type-options': 'nosniff' };
  if (https) headers['strict-transport-security'] = STRICT_TRANSPORT_SECURITY;
  return headers;
}

/**
 * The request's context, opened by the first hooks of every request:
 * - onRequest: the context store (AsyncLocalStorage through nestjs-cls), entered with `enterWith` in
 *   the request's own async context, so everything the request runs afterwards (body parsing, guard,
 *   handler, the onResponse log line) sees it, and nothing else does; its requestId is the incoming
 *   one (request-id.ts).
 * - preHandler (the first): the body is parsed; a valid body `requestId` becomes the request's id.
 * - onSend: the context's headers (contextHeaders) on every answer, errors included.
 */
export function installRequestContext(fastify: FastifyInstance, sandbox: boolean, publicUrl: string): void {
  const https = servedOverHttps(publicUrl);
  const cls = ClsServiceManager.getClsService<RequestContextStore>();
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = sandbox ? request.headers[SANDBOX_FAULT_HEADER] : undefined;
    const store: RequestContextStore = { requestId: request.id, [SANDBOX_FAULTS]: header === undefined ? NO_FAULTS : parseSandboxFaults(header) };
    keepStore(request, store);
    cls.enterWith(store);
    done();
  });
  fastify.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const requestId = resolveRequestId(request);
    const store = storeOf(request);
    // The request's own store (the one entered for it), whatever the connection's context holds now.
    if (store && requestId !== store.requestId) store.requestId = requestId;
    done();
  });
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    void reply.headers(contextHeaders(request, https));
    done(null, payload);
  });
}
