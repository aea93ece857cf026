import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Injectable } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config';
import { addRouteHooks, isRoute } from '../../common/http/route-hooks';
import { sourceAddressKey } from './source-address';
import { TokenRequest } from './token-form';
import { TOKEN_PATH } from '../../common/auth/token-path';

export const TOKEN_RATE_WINDOW_SECONDS = 60;
/** CONTRACT section 12: the per-address limit is ten times the per-client one. */
export const ADDRESS_FACTOR = 10;
/**
 * CONTRACT section 2: the token 429 adds responseDetails 429/0 beside the RFC 6749 error. RFC 6749
 * names no error for a rate limit; `too_many_requests` is the name such token endpoints use (Auth0's).
 */
export const TOO_MANY_OAUTH_ERROR = { error: 'too_many_requests', error_description: 'Too many token requests; retry after Retry-After seconds' } as const;
/** Keys each counter remembers; an evicted key starts a fresh window (the address limit still bounds a flood). */
const MAX_KEYS = 10_000;

interface Window {
  count: number;
  resetAtMs: number;
}

/**
 * Fixed one-minute windows per key, in memory (per instance). Written here rather than taken from
 * @fastify/rate-limit, whose store only counts on every check: a failure or a success is counted
 * after the answer is known, and checked (without counting) before any scrypt runs.
 */
export class FixedWindowCounter {
  private readonly windows = new LRUCache<string, Window>({ max: MAX_KEYS });

  constructor(
    readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key's current window (a fresh one when none is running). */
  peek(key: string): Window {
    const now = this.now();
    const window = this.windows.get(key);
    return window && window.resetAtMs > now ? window : { count: 0, resetAtMs: now + this.windowMs };
  }

  hit(key: string): Window {
    const window = this.peek(key);
    const next = { count: window.count + 1, resetAtMs: window.resetAtMs };
    this.windows.set(key, next);
    return next;
  }

  exceeded(window: Window): boolean {
    return window.count >= this.max;
  }
}

/**
 * The token endpoint's three counters (CONTRACT sections 3 and 12), one set per instance: successful
 * token requests per client id, failed client authentications per (client id, source address), and
 * every request per source address. The token route's hooks count on them, and so does whatever
 * else checks a client's secret (the sandbox console's sign-in), so that no other door guesses it
 * unlimited.
 */
@Injectable()
export class TokenRateLimits {
  readonly perClient: number;
  readonly successes: FixedWindowCounter;
  readonly failures: FixedWindowCounter;
  readonly addresses: FixedWindowCounter;

  constructor(config: AppConfig) {
    const windowMs = TOKEN_RATE_WINDOW_SECONDS * 1000;
    this.perClient = config.env.tokenRateLimit;
    this.successes = new FixedWindowCounter(this.perClient, windowMs);
    this.failures = new FixedWindowCounter(this.perClient, windowMs);
    this.addresses = new FixedWindowCounter(this.perClient * ADDRESS_FACTOR, windowMs);
  }

  /**
   * An attempt at a client's secret outside the token route: counted against its source address;
   * the seconds to wait when the address or the client's failures from it are at their limit, else null
   * (then `failed` after a wrong secret).
   */
  attempt(ip: string, clientId: string): number | null {
    const address = sourceAddressKey(ip);
    const nowMs = Date.now();
    const current = [
      verdict('address', this.addresses, this.addresses.peek(address), nowMs),
      verdict('client-address', this.failures, this.failures.peek(clientAddressKey(clientId, address)), nowMs),
    ];
    this.addresses.hit(address);
    const exceeded = current.filter((v) => v.exceeded);
    return exceeded.length === 0 ? null : retryAfterOf(exceeded);
  }

  failed(ip: string, clientId: string): void {
    this.failures.hit(clientAddressKey(clientId, sourceAddressKey(ip)));
  }
}

/** A policy's state for one key: what is left of it, when its window resets, whether it is at its limit. */
function verdict(policy: string, counter: FixedWindowCounter, window: Window, nowMs: number): Verdict {
  return {
    policy,
    remaining: Math.max(0, counter.max - window.count),
    resetSeconds: Math.max(1, Math.ceil((window.resetAtMs - nowMs) / 1000)),
    exceeded: counter.exceeded(window),
  };
}

/** Retry-After of a refusal: when the last of the exceeded policies resets. */
function retryAfterOf(exceeded: readonly Verdict[]): number {
  return Math.max(1, ...exceeded.map((v) => v.resetSeconds));
}

/** The failures' key: a client id from one source address. */
function clientAddressKey(clientId: string, address: string): string {
  return `${clientId}\0${address}`;
}

interface Verdict {
  policy: string;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

/**
 * CONTRACT sections 3 and 12 (2026-11-25): `POST /oauth2/token` takes at most `perClient`
 * successful requests a minute per client id, at most `perClient` failed client authentications
 * a minute per (client id, source address), and ten times `perClient` requests of any kind per
 * source address; beyond any, 429/429/0 with `Retry-After`. Failures are counted per address so
 * that nobody else can exhaust a client's limit by guessing its secret. Every answer carries
 * `RateLimit-Policy` and `RateLimit` (IETF httpapi ratelimit headers, structured fields).
 *
 * The route's first onRequest hook counts and checks the address, before the form checks, so that
 * every request counts, a malformed one included, and beyond the limit even a malformed one is 429;
 * its preHandler (after the form checks' preValidation, so the client id is one string of at most
 * 128 characters) checks the client's two before any scrypt; an onSend hook counts the outcome:
 * 200 a success, 401 (invalid_client) a failure. app.factory installs it before the form checks.
 */
export function installTokenRateLimit(
  fastify: FastifyInstance,
  limits: TokenRateLimits,
  send: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void,
): void {
  const { perClient, successes, failures, addresses } = limits;
  const policyHeader = [`"client";q=${perClient}`, `"client-address";q=${perClient}`, `"address";q=${perClient * ADDRESS_FACTOR}`]
    .map((policy) => `${policy};w=${TOKEN_RATE_WINDOW_SECONDS}`)
    .join(', ');

  interface Keys {
    address: string;
    clientId: string | undefined;
    clientAddress: string | undefined;
  }
  /** The request's keys: the address from the onRequest hook, the client's once its form is parsed. */
  const KEYS = Symbol('token-rate-limit-keys');
  type Keyed = FastifyRequest & { [KEYS]?: Keys };
  const keysOf = (request: Keyed): Keys => (request[KEYS] ??= { address: sourceAddressKey(request.ip), clientId: undefined, clientAddress: undefined });
  const withClient = (request: Keyed): Keys => {
    const keys = keysOf(request);
    // The form checks ran first: the body is the parsed TokenRequest.
    const clientId = (request.body as TokenRequest | undefined)?.clientId;
    if (clientId !== undefined && keys.clientId === undefined) Object.assign(keys, { clientId, clientAddress: clientAddressKey(clientId, keys.address) });
    return keys;
  };
  const verdicts = ({ address, clientId, clientAddress }: Keys): Verdict[] => {
    const nowMs = Date.now();
    const current = [verdict('address', addresses, addresses.peek(address), nowMs)];
    if (clientId !== undefined) current.push(verdict('client', successes, successes.peek(clientId), nowMs));
    if (clientAddress !== undefined) current.push(verdict('client-address', failures, failures.peek(clientAddress), nowMs));
    return current;
  };
  const writeHeaders = (reply: FastifyReply, current: Verdict[]) => {
    // The policy the caller is closest to.
    const nearest = current.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    void reply.header('ratelimit-policy', policyHeader);
    void reply.header('ratelimit', `"${nearest.policy}";r=${nearest.remaining};t=${nearest.resetSeconds}`);
  };
  const refuse = (request: FastifyRequest, reply: FastifyReply, exceeded: Verdict[], current: Verdict[]) => {
    writeHeaders(reply, current);
    send(
      new DomainError('TOO_MANY_TOKEN_REQUESTS', { headers: { 'retry-after': String(retryAfterOf(exceeded)) }, payload: TOO_MANY_OAUTH_ERROR }),
      request,
      reply,
    );
  };

  // Callback-style hooks (an async hook costs a promise per request).
  const limitAddress = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const keys = keysOf(request);
    const exceeded = verdicts(keys).filter((v) => v.exceeded);
    addresses.hit(keys.address);
    if (exceeded.length === 0) return done();
    refuse(request, reply, exceeded, verdicts(keys));
  };
  const limitClient = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const keys = withClient(request);
    const exceeded = verdicts(keys).filter((v) => v.exceeded && v.policy !== 'address');
    if (exceeded.length === 0) return done();
    refuse(request, reply, exceeded, verdicts(keys));
  };
  const countOutcome = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const keys = keysOf(request);
    if (reply.statusCode === 200 && keys.clientId !== undefined) successes.hit(keys.clientId);
    if (reply.statusCode === 401 && keys.clientAddress !== undefined) failures.hit(keys.clientAddress);
    if (reply.statusCode !== 429) writeHeaders(reply, verdicts(keys));
    done(null, payload);
  };
  addRouteHooks(fastify, (route) => isRoute(route, 'POST', TOKEN_PATH), [
    { name: 'onRequest', hook: limitAddress },
    { name: 'preHandler', hook: limitClient },
    { name: 'onSend', hook: countOutcome },
  ]);
}
