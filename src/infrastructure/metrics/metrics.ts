import { createServer, Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { incomingRequestId } from '../../common/http/request-id';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Logger } from '@nestjs/common';
import { privatePath } from '../../common/http/private-path';

/** The metrics listener's request lines, through the app's logger. */
const METRICS_LOG = new Logger('Metrics');

/**
 * How an enrollment call decided (CONTRACT section 16): `completed` (active account), `referred`
 * (account opened with a KYC gate for manual review), `held` (OFAC review), `declined` (a limit),
 * `incomplete` (short of a step; the identical retry completes it and is not counted again).
 */
export const ENROLLMENT_OUTCOMES = ['completed', 'referred', 'held', 'declined', 'incomplete'] as const;
export type EnrollmentOutcome = (typeof ENROLLMENT_OUTCOMES)[number];

/** A webhook attempt: `delivered` (2xx), `failed` (retried later), `abandoned` (failed, no retry left). */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'failed', 'abandoned'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];

export interface MetricsOptions {
  /** Route patterns that answer 429: their counters are exposed at 0 from start-up. */
  rateLimitedRoutes?: readonly string[];
}

export interface Sample<L extends string> {
  labels?: Partial<Record<L, string>>;
  value: number;
}

/**
 * Prometheus registry of this process: default Node metrics, per-route request counts and latency,
 * and what an operator alerts on (docs/operations-observability.md). Counters are incremented where
 * their cause happens; gauges read their source when scraped (`observe`), never on a timer.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly rateLimited: Counter<'route'>;
  private readonly enrollmentOutcomes: Counter<'outcome'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly inFlightRejections: Counter;

  constructor(options: MetricsOptions = {}) {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    this.rateLimited = this.counter(
      'rate_limited_requests_total',
      'Requests refused with 429 by a rate limit, by route pattern',
      'route',
      options.rateLimitedRoutes ?? [],
    );
    this.enrollmentOutcomes = this.counter(
      'enrollment_outcomes_total',
      'Enrollments by outcome, counted once on the call that decided them',
      'outcome',
      ENROLLMENT_OUTCOMES,
    );
    this.webhookAttempts = this.counter('webhook_delivery_attempts_total', 'Webhook delivery attempts by outcome', 'outcome', WEBHOOK_ATTEMPT_OUTCOMES);
    this.inFlightRejections = new Counter({
      name: 'partner_in_flight_rejections_total',
      help: 'Calls refused with 503/3: the partner had PARTNER_MAX_IN_FLIGHT locked calls in flight on this instance',
      registers: [this.registry],
    });
  }

  countEnrollment(outcome: EnrollmentOutcome): void {
    this.enrollmentOutcomes.inc({ outcome });
  }

  countWebhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  countInFlightRejection(): void {
    this.inFlightRejections.inc();
  }

  /**
   * A gauge read from its source at each scrape. A read that fails (database away) keeps the last
   * values rather than failing the whole scrape.
   */
  observe<L extends string>(name: string, help: string, labelNames: readonly L[], read: () => Promise<readonly Sample<L>[]> | readonly Sample<L>[]): void {
    const gauge: Gauge<L> = new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect: async () => {
        let samples: readonly Sample<L>[];
        try {
          samples = await read();
        } catch {
          return;
        }
        for (const { labels, value } of samples) {
          if (labels) gauge.set(labels, value);
          else gauge.set(value);
        }
      },
    });
  }

  /** Route patterns, not URLs, so identifiers never become label values. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions?.url ?? 'unmatched';
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      this.requests.inc(labels);
      this.duration.observe(labels, reply.elapsedTime / 1000);
      // 429 is only ever a rate limit's answer (CONTRACT sections 9 and 12).
      if (reply.statusCode === 429) this.rateLimited.inc({ route });
      done();
    });
  }

  /**
   * Production serves the metrics on their own listener (METRICS_PORT on HOST), never on the
   * partner port (CONTRACT section 12). Plain node:http: one route, no framework needed.
   */
  async listenSeparately(host: string, port: number): Promise<Server> {
    const server = createServer((request, response) => {
      // CONTRACT section 1: every response carries X-Request-Id and is logged with it, this listener's too
      // (the API port's request line, without a route, a partner or a program).
      const requestId = incomingRequestId(request);
      const url = request.url?.split('?')[0];
      response.setHeader('x-request-id', requestId);
      response.once('finish', () => {
        const line = {
          requestId,
          req: { method: request.method, url: url && privatePath(url) },
          res: { statusCode: response.statusCode },
          msg: 'request completed',
        };
        if (response.statusCode >= 500) METRICS_LOG.error({ ...line, msg: 'request errored' });
        else METRICS_LOG.log(line);
      });
      if (request.method !== 'GET' || url !== '/metrics') {
        response.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
    return server;
  }

  /** A counter whose label values are all exposed at 0 from start-up. */
  private counter<L extends string>(name: string, help: string, label: L, values: readonly string[]): Counter<L> {
    const counter = new Counter<L>({ name, help, labelNames: [label], registers: [this.registry] });
    for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0);
    return counter;
  }
}
