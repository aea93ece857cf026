import type { FastifyInstance } from 'fastify';

/** How often a closing server looks for connections that went idle since the close began. */
const SWEEP_MS = 100;

/**
 * How the app closes (main.ts on SIGTERM, or `app.close()`): new requests are refused (Fastify's
 * 503 while closing), the requests in flight finish, then `drain` waits for the work that outlives
 * its request (a call whose client went away) before the pool and the rest close.
 *
 * Node closes the connections that are idle when the server starts closing; one whose request was
 * still running then is kept alive after its answer, and the close would wait for it until
 * keepAliveTimeout (72 s). So while closing, idle connections are closed as they appear.
 */
export function installGracefulClose(fastify: FastifyInstance, drain: () => Promise<void>): void {
  let sweep: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', (done) => {
    sweep = setInterval(() => fastify.server.closeIdleConnections(), SWEEP_MS).unref();
    done();
  });
  fastify.addHook('onClose', async () => {
    clearInterval(sweep);
    await drain();
  });
}
