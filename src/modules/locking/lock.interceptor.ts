import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { defer, finalize, from, mergeMap, Observable } from 'rxjs';
import { Principal } from '../../common/context/request-context';
import { BlindIndex } from '../../infrastructure/crypto/field-cipher';
import { LOCK_ON, LockValue } from './lock-on.decorator';
import { LockService } from './lock.service';
import { LOCK_LEASE } from './transaction-runner';

interface LockableBody {
  requestId?: unknown;
  encryptedUserData?: { identifyingData?: { ssn?: unknown } };
}

/**
 * Global interceptor (runs after the guard and the JWE body decryption, before route
 * interceptors such as @Idempotent) taking the locks a route declares with @LockOn.
 */
@Injectable()
export class LockInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly locks: LockService,
    private readonly cls: ClsService,
    private readonly blindIndex: BlindIndex,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const values = this.reflector.get<LockValue[] | undefined>(LOCK_ON, context.getHandler());
    if (!values || values.length === 0) return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const names = values.map((value) => this.lockName(value, request)).filter((name): name is string => name !== undefined);
    if (names.length === 0) return next.handle();
    return from(this.locks.acquire(names)).pipe(
      mergeMap((lease) => {
        this.cls.set(LOCK_LEASE, lease);
        return defer(() => next.handle()).pipe(
          finalize(() => {
            this.cls.set(LOCK_LEASE, undefined);
            void lease.release();
          }),
        );
      }),
    );
  }

  /** Lock names are scoped by partner and program; the SSN only ever appears as its blind index. */
  private lockName(value: LockValue, request: FastifyRequest & { user?: Principal }): string | undefined {
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    const body = (request.body ?? {}) as LockableBody;
    const partner = request.user?.partner.partnerId ?? '-';
    const program = params.programCode ?? '-';
    switch (value) {
      case 'requestId':
        return typeof body.requestId === 'string' ? `requestId:${partner}:${program}:${body.requestId}` : undefined;
      case 'ssn': {
        const ssn = body.encryptedUserData?.identifyingData?.ssn;
        return typeof ssn === 'string' && ssn.length > 0 ? `ssn:${program}:${this.blindIndex.of('ssn', ssn)}` : undefined;
      }
      case 'accountIdentifier':
        return params.accountIdentifier ? `account:${params.accountIdentifier}` : undefined;
      case 'userIdentifier':
        return params.userIdentifier ? `user:${params.userIdentifier}` : undefined;
    }
  }
}
