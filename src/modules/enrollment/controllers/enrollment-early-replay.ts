import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REQUIRED_SCOPES } from '../../../common/auth/decorators';
import { answerBody, RawResponse } from '../../../common/http/answer';
import { addRoutePreHandler } from '../../../common/http/route-hooks';
import { arrivedBodyOf, ValidationMemo } from '../../../common/validation/validation-memo';
import type { Scope } from '../../../config/service-config';
import { CachedBearer } from '../../auth/cached-bearer';
import { CallRunner } from '../../locking/call-runner';
import { CreateEnrollmentDto } from '../dtos/create-enrollment.dto';
import { enrollmentCall } from '../services/enrollment-points';
import { ENROLLMENTS_PATH, EnrollmentController } from './enrollment.controller';

/**
 * The identical retry of an enrollment, answered ahead of Nest's pipeline: a Fastify preHandler of
 * POST enrollments takes the CallRunner's first step (the stored-answer read) for a request that
 * the bearer guard would admit from its verified-token cache and whose body (these very bytes)
 * the validation memo knows has passed the field rules, with the fingerprint of its payload (so the
 * order of CONTRACT section 6 holds: the field rules, then the stored-answer look-up). When it finds
 * a final answer stored under that fingerprint, it sends it,
 * as the whole pipeline would have; in every other case (a token not cached, a body not known, a
 * JWE body, any query string such as `?validateOnly`, no final answer, another payload or a
 * fingerprint of an older form) it does
 * nothing more and the request goes the whole way, where the guard, the pipe and the runner
 * decide and answer as they always do.
 *
 * Why: a replay is one read, and Nest's router, the passport guard, the body pipe and the call's
 * own connection cost more CPU than that read and its answer (README, eleventh pass).
 */
@Injectable()
export class EnrollmentEarlyReplay {
  private readonly scopes: readonly Scope[] | undefined;

  constructor(
    private readonly bearer: CachedBearer,
    private readonly memo: ValidationMemo,
    private readonly calls: CallRunner,
    reflector: Reflector,
  ) {
    // The scopes the guard requires of the route, read from the same decorators.
    this.scopes = reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, [EnrollmentController.prototype.enroll, EnrollmentController]);
  }

  /** Adds the hook to POST enrollments as Nest registers it (before app.init). */
  install(fastify: FastifyInstance): void {
    addRoutePreHandler(fastify, 'POST', `/${ENROLLMENTS_PATH}`, (request, reply) => this.replay(request, reply));
  }

  private async replay(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const answer = await this.storedAnswer(request);
    if (!answer) return undefined;
    return reply.code(200).send(answerBody(reply, answer));
  }

  private storedAnswer(request: FastifyRequest): Promise<RawResponse | null> | null {
    if (request.url.includes('?')) return null;
    const body = request.body as { requestId?: unknown; encryptedUserData?: unknown } | null;
    if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.requestId !== 'string' || typeof body.encryptedUserData === 'string')
      return null;
    const principal = this.bearer.admitted(request, this.scopes);
    if (!principal) return null;
    // These very bytes passed the field rules lately, and this is the fingerprint of their payload.
    const fingerprint = this.memo.fingerprintOf(this.memo.digestOf(CreateEnrollmentDto, arrivedBodyOf(request)));
    if (fingerprint === undefined) return null;
    const { programCode } = request.params as { programCode: string };
    return this.calls.storedAnswer(
      principal.partner.partnerId,
      enrollmentCall(principal.partner.partnerId, programCode, body as { requestId: string }).key,
      fingerprint,
    );
  }
}
