import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../common/context/request-context';
import type { Scope } from '../../config/service-config';
import { bearerTokenOf, refusalOf, tokenOutsideHeader } from './bearer-auth.guard';
import { TokenService } from './token.service';

/**
 * The bearer guard's decision for a request whose token is already in the verified-token cache,
 * without the guard: for work that may run ahead of Nest's pipeline (the enrollment's early replay).
 * It answers only "admitted, as this principal" or "don't know" (undefined): a token not cached,
 * refused or offered anywhere else, a missing scope or another partner's program all go the guard's
 * way, which gives every refusal its answer.
 */
@Injectable()
export class CachedBearer {
  constructor(private readonly tokens: TokenService) {}

  admitted(request: FastifyRequest, required: readonly Scope[] | undefined): Principal | undefined {
    const token = bearerTokenOf(request.headers.authorization);
    if (token === undefined || tokenOutsideHeader(request)) return undefined;
    const principal = this.tokens.cachedPrincipal(token);
    return principal && refusalOf(principal, required, request) === null ? principal : undefined;
  }
}
