import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import { TOKEN_PATH } from '../auth/token-path';
import { currentRequestId, REQUEST_ID_HEADER, resolveRequestId } from '../http/request-id';
import { keepStore, storeOf, type RequestContextStore } from './request-context';
import { parseSandboxFaults, SANDBOX_FAULT_HEADER, SANDBOX_FAULTS } from './sandbox-faults';

const NO_FAULTS: readonly string[] = Object.freeze([]);

/**
 * The headers every answer carries (CONTRACT section 1): its `X-Request-Id`, and under /v1 and on the
 * token path (whatever the method) `Cache-Control: no-store`; and `X-Content-Type-Options: nosniff`
 * (no browser reads a JSON answer as anything but its declared type; docs/security.md). Set by the
 * onSend hook below, and by the error path of Fastify's own URL errors, which answer before any hook runs.
 */
export function contextHeaders(request: FastifyRequest): Record<string, string> {
  const url = request.url;
  const api = url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?') || url === TOKEN_PATH || url.startsWith(`${TOKEN_PATH}?`);
  const id = currentRequestId(request);
  return api
    ? { [REQUEST_ID_HEADER]: id, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }
    : { [REQUEST_ID_HEADER]: id, 'x-content-type-options': 'nosniff' };
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
export function installRequestContext(fastify: FastifyInstance, sandbox: boolean): void {
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
    void reply.headers(contextHeaders(request));
    done(null, payload);
  });
}
