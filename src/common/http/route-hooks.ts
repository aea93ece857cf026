import type { FastifyInstance, preHandlerAsyncHookHandler, RouteOptions } from 'fastify';

/** A hook of a route's own (its route options carry one or a list per kind). */
export interface RouteHook {
  name: 'onRequest' | 'preValidation' | 'preHandler' | 'onSend';
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

/** Whether a route being registered is the one of `method` and `url`. */
export function isRoute(route: RouteOptions, method: string, url: string): boolean {
  return route.url === url && (Array.isArray(route.method) ? route.method : [route.method]).includes(method);
}

/** Adds `hook` as a preHandler of one route only (addRouteHooks). */
export function addRoutePreHandler(fastify: FastifyInstance, method: string, url: string, hook: preHandlerAsyncHookHandler): void {
  addRouteHooks(fastify, (route) => isRoute(route, method, url), [{ name: 'preHandler', hook }]);
}

/**
 * Gives one route a body limit of its own (Fastify's `bodyLimit` route option, set from the onRoute
 * hook as Fastify documents for changing a route's options; Nest has no decorator for it): the
 * body parsers then take up to `bytes` on that route, and the server's limit everywhere else.
 */
export function setRouteBodyLimit(fastify: FastifyInstance, method: string, url: string, bytes: number): void {
  fastify.addHook('onRoute', (route) => {
    if (isRoute(route, method, url)) route.bodyLimit = bytes;
  });
}
