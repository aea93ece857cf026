import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DomainError } from '../errors/domain-error';

const TIMER = Symbol('request-timeout');
type Timed = FastifyRequest & { [TIMER]?: NodeJS.Timeout };

/**
 * CONTRACT section 12: a request that cannot finish in `timeoutMs` answers 503/503/2 (with
 * Retry-After), so a database that hangs never hangs a client. The work itself may still finish
 * (its transaction commits or rolls back on its own); its late answer is dropped.
 */
export function installRequestTimeout(
  fastify: FastifyInstance,
  timeoutMs: number,
  send: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void,
): void {
  // Callback-style hooks, as every hook that runs on all routes: an async one costs a promise each.
  fastify.addHook('onRequest', (request: Timed, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    request[TIMER] = setTimeout(() => {
      if (!reply.sent) send(new DomainError('DEPENDENCY_UNAVAILABLE'), request, reply);
    }, timeoutMs).unref();
    done();
  });
  fastify.addHook('onResponse', (request: Timed, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    clearTimeout(request[TIMER]);
    done();
  });
}
