import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import type { RequestContextStore } from './request-context';
import { parseSandboxFaults, SANDBOX_FAULT_HEADER, SANDBOX_FAULTS } from './sandbox-faults';

const NO_FAULTS: readonly string[] = Object.freeze([]);

/**
 * Opens the request's context store (AsyncLocalStorage through nestjs-cls) in the first onRequest
 * hook: `enterWith` in the request's own async context, so everything the request runs afterwards
 * (body parsing, guard, handler, the onResponse log line) sees it, and nothing else does. The
 * requestId starts as the generated id; the preHandler hook replaces it with the body's requestId.
 */
export function installRequestContext(fastify: FastifyInstance, sandbox: boolean): void {
  const cls = ClsServiceManager.getClsService<RequestContextStore>();
  fastify.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = sandbox ? request.headers[SANDBOX_FAULT_HEADER] : undefined;
    cls.enterWith({ requestId: request.id, [SANDBOX_FAULTS]: header === undefined ? NO_FAULTS : parseSandboxFaults(header) });
    done();
  });
}
