import { applyDecorators, CanActivate, ExecutionContext, Injectable, OnApplicationBootstrap, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addRouteHooks, isRoute } from '../../common/http/route-hooks';
import { ApiErrors } from '../../common/openapi/api-answers';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config';

const WINDOW_SECONDS = 60;

/** The limited routes' patterns (their 429s are counted from start-up in rate_limited_requests_total). */
export const LIMITED_WEBHOOK_ROUTES = ['/v1/webhooks/test', '/v1/webhooks/events/:eventId/redeliver'] as const;

type Check = ReturnType<FastifyInstance['createRateLimit']>;

/**
 * CONTRACT section 7: test and redeliver calls of one partner, together, at most
 * WEBHOOK_TEST_RATE_LIMIT a minute. Counted with @fastify/rate-limit's counter (`createRateLimit`, the
 * token endpoint's mechanism), per instance in memory as section 12 allows: the limit keeps a partner
 * from flooding its own delivery queue, and fair delivery slots already keep it from others'.
 */
@Injectable()
export class WebhookCallLimiter implements OnApplicationBootstrap {
  private check?: Check;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: AppConfig,
  ) {}

  private get fastify(): FastifyInstance {
    return this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
  }

  /** app.factory registers @fastify/rate-limit (not globally) before the app boots. */
  onApplicationBootstrap(): void {
    this.check = this.fastify.createRateLimit({
      max: this.config.env.webhookTestRateLimit,
      timeWindow: WINDOW_SECONDS * 1000,
      // Behind the bearer guard: the request's principal is the verified partner.
      keyGenerator: (request) => `webhook-calls:${(request as FastifyRequest & { user: Principal }).user.partner.partnerId}`,
    });
  }

  /** Counts the call; beyond the limit, 429/429/0 with Retry-After. Every answer carries RateLimit-Policy and RateLimit. */
  async take(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!this.check) throw new Error('WebhookCallLimiter used before the application bootstrapped');
    const verdict = await this.check(request);
    if (verdict.isAllowed) return;
    this.setHeaders(reply, verdict.remaining, verdict.ttlInSeconds);
    if (verdict.isExceeded) throw new DomainError('TOO_MANY_WEBHOOK_CALLS', { headers: { 'retry-after': String(Math.max(1, verdict.ttlInSeconds)) } });
  }

  /**
   * The headers of an answer given before the route's guard counted the call (CONTRACT section 12:
   * every answer of a rate-limited route carries them). A verified partner refused for its scope or
   * program is counted like any of its calls; a caller with no valid token is no partner, counts
   * against none, and is shown the whole quota.
   */
  async headersBeforeCounting(request: FastifyRequest & { user?: Principal }, reply: FastifyReply): Promise<void> {
    if (!request.user) return this.setHeaders(reply, this.config.env.webhookTestRateLimit, WINDOW_SECONDS);
    // A partner already over its quota: the 429 is not this answer's; its headers are set all the same.
    await this.take(request, reply).catch((error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
    });
  }

  private setHeaders(reply: FastifyReply, remaining: number, resetSeconds: number): void {
    void reply.header('ratelimit-policy', `"partner";q=${this.config.env.webhookTestRateLimit};w=${WINDOW_SECONDS}`);
    void reply.header('ratelimit', `"partner";r=${remaining};t=${resetSeconds}`);
  }
}

/**
 * The limited routes' own onSend hook (installed by app.factory before Nest registers the routes):
 * an answer the route guard never reached, the bearer guard's 401 or 403, gets the headers too.
 */
export function installWebhookCallLimitHeaders(fastify: FastifyInstance, limiter: WebhookCallLimiter): void {
  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (!reply.hasHeader('ratelimit')) await limiter.headersBeforeCounting(request, reply);
    return payload;
  };
  addRouteHooks(fastify, (route) => LIMITED_WEBHOOK_ROUTES.some((url) => isRoute(route, 'POST', url)), [{ name: 'onSend', hook: onSend }]);
}

@Injectable()
export class WebhookCallLimitGuard implements CanActivate {
  constructor(private readonly limiter: WebhookCallLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    await this.limiter.take(http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
    return true;
  }
}

/** A test or redeliver call: counted against the partner's WEBHOOK_TEST_RATE_LIMIT (after the bearer guard, a route guard). */
export const LimitedWebhookCall = () =>
  applyDecorators(
    UseGuards(WebhookCallLimitGuard),
    ApiErrors(
      { 429: ['TOO_MANY_WEBHOOK_CALLS'] },
      { 429: 'More than the limit (default 60) of test and redeliver calls of the partner in a minute; Retry-After says when to retry' },
    ),
  );
