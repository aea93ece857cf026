import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Scope } from '../../config/service-config';

export const IS_PUBLIC = 'auth:public';
export const REQUIRED_SCOPES = 'auth:scopes';

/** The route needs no bearer token (token endpoint, health, metadata). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

/** The bearer token must carry every listed scope; OpenAPI learns the same. */
export const RequiresScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPES, scopes),
    ApiBearerAuth('bearer'),
    ApiUnauthorizedResponse({ description: 'Missing, invalid or expired token (401, code 401, subCode 0)' }),
    ApiForbiddenResponse({ description: `Needs scope ${scopes.join(' ')} (403/403/1) and a program of the partner (403/403/2)` }),
  );
