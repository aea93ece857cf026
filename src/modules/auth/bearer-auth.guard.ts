import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { ClsService } from 'nestjs-cls';
import { IS_PUBLIC, REQUIRED_SCOPES } from '../../common/auth/decorators';
import { Principal, RequestContextStore } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import type { Scope } from '../../config/service-config';

const REALM = 'realm="enrollment-service"';

/**
 * Global guard: bearer token (passport), then scopes, then program tenancy. Failures carry the
 * RFC 6750 WWW-Authenticate challenge. Deny by default: a route that declares neither
 * `@RequiresScopes(...)` nor `@Public()` is refused to every token. The token is read from the
 * Authorization header only (CONTRACT section 3): `?access_token=` and a body `access_token`,
 * which passport-http-bearer would also take, are refused. The token itself is verified by the
 * bearer strategy (BearerStrategy: jose, and the one cache of verified tokens).
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  constructor(
    private readonly reflector: Reflector,
    private readonly cls: ClsService<RequestContextStore>,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    if (tokenOutsideHeader(request)) {
      throw new DomainError('UNAUTHORIZED', {
        headers: { 'www-authenticate': `Bearer ${REALM}, error="invalid_request", error_description="the token goes in the Authorization header only"` },
      });
    }
    await super.canActivate(context);
    const principal = request.user as Principal;
    const refusal = refusalOf(principal, this.reflector.getAllAndOverride<Scope[] | undefined>(REQUIRED_SCOPES, targets), request);
    if (refusal) throw refusal;
    if (this.cls.isActive()) this.cls.set('principal', principal);
    return true;
  }

  override handleRequest<TUser = Principal>(error: unknown, user: TUser | false, _info: unknown, context: ExecutionContext): TUser {
    if (error || !user) {
      const request = context.switchToHttp().getRequest<FastifyRequest>();
      const presented = typeof request.headers.authorization === 'string' && request.headers.authorization.trim() !== '';
      const challenge = presented ? `Bearer ${REALM}, error="invalid_token"` : `Bearer ${REALM}`;
      throw new DomainError('UNAUTHORIZED', { headers: { 'www-authenticate': challenge } });
    }
    return user;
  }
}

/**
 * Why a verified principal may not call a route that needs the `required` scopes (every one of them;
 * none declared refuses every token), for the request's program (its tenancy); null when it may.
 */
function refusalOf(principal: Principal, required: readonly Scope[] | undefined, request: FastifyRequest): DomainError | null {
  const missing = required === undefined ? ['(none declared)'] : required.filter((scope) => !principal.scopes.includes(scope));
  if (missing.length > 0) {
    return new DomainError('INSUFFICIENT_SCOPE', {
      headers: { 'www-authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${(required ?? []).join(' ')}"` },
    });
  }
  const programCode = (request.params as Record<string, string> | undefined)?.programCode;
  return programCode !== undefined && !principal.partner.programs.includes(programCode) ? new DomainError('PROGRAM_NOT_ALLOWED') : null;
}

/** Whether the request offers a token elsewhere than the Authorization header (refused, CONTRACT section 3). */
function tokenOutsideHeader(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown> | undefined;
  const body = request.body as Record<string, unknown> | undefined | null;
  return (query !== undefined && 'access_token' in query) || (body !== null && typeof body === 'object' && !Array.isArray(body) && 'access_token' in body);
}
