import { applyDecorators, CanActivate, ExecutionContext, Injectable, OnApplicationBootstrap, UseGuards } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
    void reply.header('ratelimit-policy', `"partner";q=${verdict.max};w=${WINDOW_SECONDS}`);
    void reply.header('ratelimit', `"partner";r=${verdict.remaining};t=${verdict.ttlInSeconds}`);
    if (verdict.isExceeded) throw new DomainError('TOO_MANY_WEBHOOK_CALLS', { headers: { 'retry-after': String(Math.max(1, verdict.ttlInSeconds)) } });
  }
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
      { 429: 'More than WEBHOOK_TEST_RATE_LIMIT (default 60) test and redeliver calls of the partner in a minute; Retry-After says when to retry' },
    ),
  );
