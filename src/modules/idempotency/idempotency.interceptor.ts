import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { catchError, from, mergeMap, Observable, of } from 'rxjs';
import type { EntityManager } from 'typeorm';
import { Principal, REQUEST_ID_PATTERN } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { errorEnvelope, successEnvelope } from '../../common/http/envelope';
import { rawResponse, RawResponse } from '../../common/http/envelope.interceptor';
import { currentRequestId } from '../../common/http/request-id';
import type { LockLease } from '../locking/lock.service';
import { LOCK_LEASE } from '../locking/transaction-runner';
import { IDEMPOTENCY_CONTEXT, IDEMPOTENT_OPERATION, IdempotencyCall } from './idempotency-context';
import type { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { fingerprintOf, IdempotencyKey, IdempotencyStore } from './idempotency.store';

export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Runs inside the call's locks (LockInterceptor is global and comes first), so the look-up
 * here is authoritative: no identical call can be half-way through at the same time.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
    private readonly cls: ClsService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = idempotentCall(context, this.reflector);
    if (!call) return next.handle(); // validation will answer
    const { key, fingerprint, operation } = call;
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const requestId = currentRequestId(context.switchToHttp().getRequest<FastifyRequest>());
    return from(this.store.find(key, this.leaseManager())).pipe(
      mergeMap((record) => {
        const replay = storedAnswer(record, fingerprint, reply);
        if (replay) return of(replay);
        const current: IdempotencyCall = { key, operation, fingerprint, record };
        this.cls.set(IDEMPOTENCY_CONTEXT, current);
        return next.handle().pipe(
          mergeMap(async (data: unknown) => {
            const envelope = successEnvelope(requestId, (data ?? {}) as object);
            if (!current.incomplete) await this.store.saveResponse(key, 200, JSON.stringify(envelope), this.leaseManager());
            return rawResponse(envelope);
          }),
          catchError(async (error: unknown) => {
            // A business decline (HTTP 200) is the call's result and replays like a success.
            if (error instanceof DomainError && error.entry.http === 200 && !current.incomplete) {
              const envelope = errorEnvelope(requestId, error.details(), error.options.payload);
              await this.store.saveResponse(key, 200, JSON.stringify(envelope), this.leaseManager());
            }
            throw error;
          }),
        );
      }),
    );
  }

  /**
   * The call's lock connection when it holds one: a second pooled connection per locked call
   * starves the pool (and answers 500 after the pool timeout) once concurrent calls reach its size.
   */
  private leaseManager(): EntityManager | undefined {
    return (this.cls.get(LOCK_LEASE) as LockLease | undefined)?.runner.manager;
  }
}

interface CallIdentity {
  operation: string;
  key: IdempotencyKey;
  fingerprint: string;
}

/** Per request: the replay fast path and the authoritative look-up share one canonicalisation and hash. */
const identities = new WeakMap<object, CallIdentity | null>();

/** The idempotency key and payload fingerprint of an @Idempotent call, or null when it has no usable requestId. */
function idempotentCall(context: ExecutionContext, reflector: Reflector): CallIdentity | null {
  const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
  if (identities.has(request)) return identities.get(request) ?? null;
  const identity = identify(request, reflector.get<string | undefined>(IDEMPOTENT_OPERATION, context.getHandler()));
  identities.set(request, identity);
  return identity;
}

function identify(request: FastifyRequest & { user?: Principal }, operation: string | undefined): CallIdentity | null {
  const body = request.body as { requestId?: unknown } | undefined;
  const partnerId = request.user?.partner.partnerId;
  if (!operation || !partnerId || !body || typeof body.requestId !== 'string' || !REQUEST_ID_PATTERN.test(body.requestId)) return null;
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return {
    operation,
    key: { partnerId, programCode: params.programCode ?? '-', requestId: body.requestId },
    fingerprint: fingerprintOf(operation, body),
  };
}

/** The stored answer to replay, a 422 for another payload, or null when the call must run. */
function storedAnswer(record: IdempotencyKeyEntity | null, fingerprint: string, reply: FastifyReply): RawResponse | null {
  if (record && record.fingerprint !== fingerprint) throw new DomainError('IDEMPOTENCY_PAYLOAD_MISMATCH');
  if (!record?.responseBody) return null;
  void reply.header(REPLAYED_HEADER, 'true');
  return rawResponse(JSON.parse(record.responseBody) as unknown);
}

/**
 * Global, ahead of the locks: a call whose answer is already stored is replayed (or refused with
 * 422) from one read, without taking locks. Anything else goes on to the locks, where
 * IdempotencyInterceptor looks again authoritatively.
 */
@Injectable()
export class IdempotentReplayInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = idempotentCall(context, this.reflector);
    if (!call) return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return from(this.store.find(call.key)).pipe(
      mergeMap((record) => {
        const replay = storedAnswer(record, call.fingerprint, reply);
        return replay ? of(replay) : next.handle();
      }),
    );
  }
}
