import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { Observable, of } from 'rxjs';
import type { Principal } from '../../common/context/request-context';
import { REQUEST_ID_PATTERN } from '../../common/context/request-context';
import type { RawResponse } from '../../common/http/answer';
import { requestBytesOf } from '../../common/http/request-bytes';
import { PayloadFingerprint } from '../../infrastructure/crypto/payload-fingerprint';
import { IdempotencyKey, IdempotencyStore } from './idempotency.store';
import { replayedAnswer } from './replayed-answer';
import { keepLookup } from './stored-lookup';

export const IDEMPOTENT_OPERATION = 'idempotency:operation';

/**
 * The idempotency replay of a route marked `@Idempotent(operation)`: after the guard (the caller
 * and its program are admitted) and before the pipes, one read (no lock) of the requestId's record;
 * when its answer is final and was stored for these very bytes (same operation, Content-Type and
 * body), that answer is sent again, byte for byte (CONTRACT section 6: a byte-identical retry may be
 * answered before the field rules). Anything else (no record, not final, other bytes, a query
 * string such as `?validateOnly`, the read failing) goes on to the pipes and the call runner, which
 * keeps the authoritative check under the locks (replay / 422 / resume). What it read goes on with
 * the request (`keepLookup`): the runner's look-up before the locks is this read, not a second one.
 */
@Injectable()
export class IdempotencyReplayInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
    private readonly digests: PayloadFingerprint,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const replay = await this.storedAnswer(context);
    return replay ? of(replay) : next.handle();
  }

  private async storedAnswer(context: ExecutionContext): Promise<RawResponse | null> {
    const operation = this.reflector.get<string | undefined>(IDEMPOTENT_OPERATION, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal; rawBody?: Buffer }>();
    const key = operation === undefined ? null : keyOf(request);
    if (!key) return null;
    const digest = this.digests.ofBytes(operation as string, requestBytesOf(request));
    if (digest === null) return null;
    try {
      const record = await this.store.find(key);
      keepLookup(request, { record });
      return record?.responseBody != null && record.requestDigest === digest ? replayedAnswer(record.responseBody) : null;
    } catch {
      // Whatever failed here fails again on the call's own way, which answers it.
      return null;
    }
  }
}

/** The idempotency key a plain request names (partner, program, body requestId); null when it has none or has a query string. */
function keyOf(request: FastifyRequest & { user?: Principal }): IdempotencyKey | null {
  const query = request.query as Record<string, unknown> | undefined;
  if (query && Object.keys(query).length > 0) return null;
  const body = request.body as { requestId?: unknown } | null | undefined;
  const requestId = body && typeof body === 'object' && !Array.isArray(body) ? body.requestId : undefined;
  const programCode = (request.params as Record<string, string | undefined> | undefined)?.programCode;
  if (!request.user || programCode === undefined || typeof requestId !== 'string' || !REQUEST_ID_PATTERN.test(requestId)) return null;
  return { partnerId: request.user.partner.partnerId, programCode, requestId };
}
