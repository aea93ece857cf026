import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';

/** How often a closing server looks for connections that went idle since the close began. */
const SWEEP_MS = 100;

/**
 * How the app's port closes (the first step of `closeApp`, app.factory.ts): new requests are refused, the requests
 * in flight finish, then `drain` waits for the work that outlives its request (a call whose client
 * went away) before the pool and the rest close. A request that still reaches the server while it
 * closes (on a connection a running call kept open, or pipelined behind one) is answered 503/503/2
 * in the envelope, with X-Request-Id and Retry-After (CONTRACT sections 1, 2 and 9), and Fastify
 * closes its connection. Fastify's own `return503OnClosing` answers before any hook, in a body of
 * its own with none of those headers: it is off (app.factory.ts), and this preHandler hook, once
 * the body is read and the request's id resolved, does that job.
 *
 * Node closes the connections that are idle when the server starts closing; one whose request was
 * still running then is kept alive after its answer, and the close would wait for it until
 * keepAliveTimeout (72 s). So while closing, idle connections are closed as they appear.
 */
export function installGracefulClose(
  fastify: FastifyInstance,
  drain: () => Promise<void>,
  send: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void,
): void {
  let sweep: NodeJS.Timeout | undefined;
  let closing = false;
  // At preHandler, the first hook that sees the parsed body: the answer names the body's requestId,
  // the request's one id (CONTRACT section 1), after request-scope.ts's preHandler resolved it.
  fastify.addHook('preHandler', (request, reply, done) => {
    if (!closing) return done();
    send(new DomainError('DEPENDENCY_UNAVAILABLE'), request, reply);
  });
  fastify.addHook('preClose', (done) => {
    closing = true;
    sweep = setInterval(() => fastify.server.closeIdleConnections(), SWEEP_MS).unref();
    done();
  });
  fastify.addHook('onClose', async () => {
    clearInterval(sweep);
    await drain();
  });
}
