import type { FastifyInstance, preHandlerAsyncHookHandler, RouteOptions } from 'fastify';

/** A hook of a route's own (its route options carry one or a list per kind). */
export interface RouteHook {
  name: 'onRequest' | 'preHandler' | 'onSend';
  hook: unknown;
}

/**
 * Adds `hooks`, in order, to every route `matches` picks, as it is registered (Nest registers its
 * routes at app.init, so call this before): a hook every other route would run only to find out
 * that it is not its route costs them all. They run after the global hooks of their kind. The list
 * is read as each route is registered, so hooks appended to it before then are added too.
 */
export function addRouteHooks(fastify: FastifyInstance, matches: (route: RouteOptions) => boolean, hooks: readonly RouteHook[]): void {
  fastify.addHook('onRoute', (route) => {
    if (!matches(route)) return;
    const own = route as unknown as Record<RouteHook['name'], unknown>;
    for (const { name, hook } of hooks) {
      const existing = own[name] === undefined ? [] : Array.isArray(own[name]) ? (own[name] as unknown[]) : [own[name]];
      own[name] = [...existing, hook];
    }
  });
}

/** Adds `hook` as a preHandler of one route only (addRouteHooks). */
export function addRoutePreHandler(fastify: FastifyInstance, method: string, url: string, hook: preHandlerAsyncHookHandler): void {
  addRouteHooks(fastify, (route) => route.url === url && (Array.isArray(route.method) ? route.method : [route.method]).includes(method), [
    { name: 'preHandler', hook },
  ]);
}
