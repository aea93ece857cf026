import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { map, Observable } from 'rxjs';
import { RequestContextStore } from '../context/request-context';
import { successEnvelope, validEnvelope } from './envelope';
import { currentRequestId } from './request-id';

export const RAW_RESPONSE = Symbol('raw-response');

/** Marks a handler result that is already a complete body (token endpoint, replays, metrics). */
export interface RawResponse {
  [RAW_RESPONSE]: true;
  /** An object, or JSON text sent as it is (a stored answer replayed byte for byte). */
  body: unknown;
  headers?: Record<string, string>;
}

export function rawResponse(body: unknown, headers?: Record<string, string>): RawResponse {
  return { [RAW_RESPONSE]: true, body, ...(headers ? { headers } : {}) };
}

const VALIDATED = Symbol('validated');

/** What a handler returns for a `?validateOnly=true` call that passed: answered `{ requestId, responseDetails: [Valid] }`. */
export interface ValidatedOnly {
  [VALIDATED]: true;
}

export function validatedOnly(): ValidatedOnly {
  return { [VALIDATED]: true };
}

/** Wraps resource data in the success envelope; sets X-Request-Id. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly cls: ClsService<RequestContextStore>) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const requestId = currentRequestId(request);
    if (this.cls.isActive()) this.cls.set('requestId', requestId);
    void reply.header('x-request-id', requestId);
    return next.handle().pipe(
      map((data: unknown) => {
        if (data && typeof data === 'object' && RAW_RESPONSE in data) {
          const raw = data as RawResponse;
          if (raw.headers) void reply.headers(raw.headers);
          return raw.body;
        }
        if (data && typeof data === 'object' && VALIDATED in data) return validEnvelope(requestId);
        return successEnvelope(requestId, (data ?? {}) as object);
      }),
    );
  }
}
