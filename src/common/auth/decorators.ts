import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import { ApiErrors } from '../openapi/api-answers';
import type { Scope } from '../../config/service-config';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';

/** The route needs no bearer token (token endpoint, health, metadata). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/**
 * The bearer token must carry every listed scope; OpenAPI learns the same: the oauth2 client
 * credentials scheme with those scopes, or any bearer token carrying them, and the 401/403 rows.
 */
export const RequiresScopes = (...scopes: Scope[]) => {
  // No scope would admit any token: refused when the controller is loaded, so the service does not start.
  if (scopes.length === 0) throw new Error('@RequiresScopes() needs at least one scope');
  return applyDecorators(
    SetMetadata(REQUIRED_SCOPES, scopes),
    ApiSecurity('oauth2', scopes),
    ApiBearerAuth('bearer'),
    ApiErrors(
      { 401: ['UNAUTHORIZED'], 403: ['INSUFFICIENT_SCOPE', 'PROGRAM_NOT_ALLOWED'] },
      {
        401: 'Missing, invalid or expired token, with an RFC 6750 WWW-Authenticate header',
        403: `Needs scope ${scopes.join(' ')} (403/403/1, error="insufficient_scope"); a call that names a program (in its path or body) needs one of the partner's (403/403/2)`,
      },
    ),
  );
};
