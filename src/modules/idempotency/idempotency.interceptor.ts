import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { catchError, from, mergeMap, Observable, of } from 'rxjs';
import type { EntityManager } from 'typeorm';
import { Principal, REQUEST_ID_PATTERN } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { errorEnvelope, successEnvelope } from '../../common/http/envelope';
import { rawResponse } from '../../common/http/envelope.interceptor';
import { currentRequestId } from '../../common/http/request-id';
import type { LockLease } from '../locking/lock.service';
import { LOCK_LEASE } from '../locking/transaction-runner';
import { IDEMPOTENCY_CONTEXT, IDEMPOTENT_OPERATION, IdempotencyCall } from './idempotency-context';
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
    const operation = this.reflector.get<string>(IDEMPOTENT_OPERATION, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const body = request.body as { requestId?: unknown } | undefined;
    const partnerId = request.user?.partner.partnerId;
    if (!operation || !partnerId || !body || typeof body.requestId !== 'string' || !REQUEST_ID_PATTERN.test(body.requestId)) {
      return next.handle(); // validation will answer
    }
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const key: IdempotencyKey = { partnerId, programCode: params.programCode ?? '-', requestId: body.requestId };
    const fingerprint = fingerprintOf(operation, body);
    const requestId = currentRequestId(request);
    return from(this.store.find(key, this.leaseManager())).pipe(
      mergeMap((record) => {
        if (record && record.fingerprint !== fingerprint) throw new DomainError('IDEMPOTENCY_PAYLOAD_MISMATCH');
        if (record?.responseBody) {
          void reply.header(REPLAYED_HEADER, 'true');
          return of(rawResponse(JSON.parse(record.responseBody) as unknown));
        }
        const call: IdempotencyCall = { key, operation, fingerprint, record };
        this.cls.set(IDEMPOTENCY_CONTEXT, call);
        return next.handle().pipe(
          mergeMap(async (data: unknown) => {
            const envelope = successEnvelope(requestId, (data ?? {}) as object);
            if (!call.incomplete) await this.store.saveResponse(key, 200, JSON.stringify(envelope), this.leaseManager());
            return rawResponse(envelope);
          }),
          catchError(async (error: unknown) => {
            // A business decline (HTTP 200) is the call's result and replays like a success.
            if (error instanceof DomainError && error.entry.http === 200 && !call.incomplete) {
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
