import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { finalize, Observable, of } from 'rxjs';
import type { Principal } from '../../common/context/request-context';
import { REQUEST_ID_PATTERN } from '../../common/context/request-context';
import type { RawResponse } from '../../common/http/answer';
import { requestBytesOf } from '../../common/http/request-bytes';
import { PayloadFingerprint } from '../../infrastructure/crypto/payload-fingerprint';
import { PartnerInFlight } from '../../infrastructure/database/partner-in-flight';
import { IdempotencyKey, IdempotencyStore } from './idempotency.store';
import { replayedAnswer } from './replayed-answer';
import { keepLookup } from './stored-lookup';

export const IDEMPOTENT_OPERATION = 'idempotency:operation';

/**
 * The idempotency replay of a route marked `@Idempotent(operation)`: after the guard (the caller
 * and its program are admitted) and before the pipes, the call is admitted under its partner's
 * in-flight cap (PartnerInFlight: its read takes a pooled connection, CONTRACT section 12) until the
 * route has answered, when the cap has room (else it goes on unread, and the runner admits it after
 * the field rules), and one read (no lock) of the requestId's record;
 * when its answer is final and was stored for these very bytes (same operation, Content-Type and
 * body), that answer is sent again, byte for byte (CONTRACT section 6: a byte-identical retry may be
 * answered before the field rules). Anything else (no record, not final, other bytes, a query
 * string such as `?validateOnly`, the read failing) goes on to the pipes and the call runner, which
 * keeps the authoritative check under the locks (replay / 422 / resume). The admission and what it
 * read go on with the request (`keepLookup`): the runner neither admits the call again nor reads the
 * record a second time before the locks.
 */
@Injectable()
export class IdempotencyReplayInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly store: IdempotencyStore,
    private readonly digests: PayloadFingerprint,
    private readonly inFlight: PartnerInFlight,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const operation = this.reflector.get<string | undefined>(IDEMPOTENT_OPERATION, context.getHandler());
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal; rawBody?: Buffer }>();
    const key = operation === undefined ? null : keyOf(request);
    const digest = key === null ? null : this.digests.ofBytes(operation as string, requestBytesOf(request));
    if (key === null || digest === null) return next.handle();
    // With the partner's cap full, no read here: the call goes on to the field rules, which come
    // before anything is looked up (CONTRACT section 6), and the runner admits it or answers 503/3.
    const leave = this.inFlight.tryEnter(key.partnerId);
    if (leave === null) return next.handle();
    try {
      const replay = await this.storedAnswer(request, key, digest);
      return (replay ? of(replay) : next.handle()).pipe(finalize(leave));
    } catch (error) {
      leave();
      throw error;
    }
  }

  private async storedAnswer(request: FastifyRequest, key: IdempotencyKey, digest: string): Promise<RawResponse | null> {
    try {
      const record = await this.store.find(key);
      keepLookup(request, { record });
      return record?.responseBody != null && record.requestDigest === digest ? replayedAnswer(record.responseBody) : null;
    } catch {
      // Whatever failed here fails again on the call's own way, which answers it (admitted already).
      keepLookup(request, {});
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
