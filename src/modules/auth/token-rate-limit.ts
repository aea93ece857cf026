import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { DomainError } from '../../common/errors/domain-error';
import { addRoutePreHandler } from '../../common/http/route-hooks';
import { requestedClientId } from './client-credentials';
import { TOKEN_ROUTE } from './token-form';

export const TOKEN_RATE_WINDOW_SECONDS = 60;
/** CONTRACT section 12: the per-address limit is ten times the per-client one. */
export const ADDRESS_FACTOR = 10;

interface Verdict {
  policy: string;
  max: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

type Check = (request: FastifyRequest) => Promise<{ max?: number; remaining?: number; ttlInSeconds?: number; isExceeded?: boolean }>;

/**
 * CONTRACT section 12: `POST /oauth2/token` takes at most `perClient` requests a minute per client
 * id and ten times that per source address; beyond either, 429/429/0 with `Retry-After`. Every
 * answer of the route carries `RateLimit-Policy` and `RateLimit` (IETF httpapi ratelimit headers,
 * structured fields). Counters are @fastify/rate-limit's in-memory LRU stores, per instance. The
 * check runs as a preHandler of that route only, after the form is parsed and before any scrypt.
 */
export async function installTokenRateLimit(
  fastify: FastifyInstance,
  perClient: number,
  send: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void,
): Promise<void> {
  await fastify.register(rateLimit, { global: false });
  const timeWindow = TOKEN_RATE_WINDOW_SECONDS * 1000;
  const limiter = (max: number, key: (request: FastifyRequest) => string) =>
    (fastify as unknown as { createRateLimit(options: object): Check }).createRateLimit({ max, timeWindow, keyGenerator: key, cache: 10_000 });
  const byClient = limiter(perClient, (request) => `client:${requestedClientId(request.headers.authorization, request.body) ?? ''}`);
  const byAddress = limiter(perClient * ADDRESS_FACTOR, (request) => `address:${request.ip}`);
  const policyHeader = `"client";q=${perClient};w=${TOKEN_RATE_WINDOW_SECONDS}, "address";q=${perClient * ADDRESS_FACTOR};w=${TOKEN_RATE_WINDOW_SECONDS}`;

  const verdict = async (policy: string, check: Check, request: FastifyRequest): Promise<Verdict> => {
    const result = await check(request);
    return {
      policy,
      max: result.max ?? 0,
      remaining: result.remaining ?? 0,
      resetSeconds: result.ttlInSeconds ?? TOKEN_RATE_WINDOW_SECONDS,
      exceeded: result.isExceeded === true,
    };
  };

  const limitTokenRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const hasClientId = requestedClientId(request.headers.authorization, request.body) !== undefined;
    const verdicts = [await verdict('address', byAddress, request), ...(hasClientId ? [await verdict('client', byClient, request)] : [])];
    // The tighter of the two is what the caller is closest to.
    const nearest = verdicts.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    void reply.header('ratelimit-policy', policyHeader);
    void reply.header('ratelimit', `"${nearest.policy}";r=${nearest.remaining};t=${nearest.resetSeconds}`);
    const exceeded = verdicts.filter((v) => v.exceeded);
    if (exceeded.length === 0) return;
    const retryAfter = Math.max(1, ...exceeded.map((v) => v.resetSeconds));
    send(new DomainError('TOO_MANY_TOKEN_REQUESTS', { headers: { 'retry-after': String(retryAfter) } }), request, reply);
    return reply;
  };
  addRoutePreHandler(fastify, 'POST', TOKEN_ROUTE, limitTokenRequest);
}
