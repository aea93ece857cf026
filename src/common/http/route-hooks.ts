import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';

/**
 * Adds `hook` as a preHandler of one route only, as the route is registered (Nest registers its
 * routes at app.init, so call this before): a hook every other route would run only to find out
 * that it is not its route costs them all. It runs after the global preHandlers.
 */
export function addRoutePreHandler(fastify: FastifyInstance, method: string, url: string, hook: preHandlerAsyncHookHandler): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url !== url || !methods.includes(method)) return;
    const own = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [...own, hook];
  });
}
