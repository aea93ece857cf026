import { Body, Controller, Get, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors, errorExample } from '../../common/openapi/api-answers';
import { AuthorizationServerMetadataDto, JwkSetDto, OAuthErrorDto, TokenRateLimitedDto, TokenRequestDto, TokenResponseDto } from './oauth-responses.dto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { TOKEN_PATH } from '../../common/auth/token-path';
import { AcceptsForm } from '../../common/http/form-body';
import type { Principal } from '../../common/context/request-context';
import { rawResponse, RawResponse } from '../../common/http/answer';
import { SCOPES } from '../../config/service-config';
import { KeyStore } from '../../infrastructure/crypto/key-store';
import { TokenRequest } from './token-form';
import { TOO_MANY_OAUTH_ERROR } from './token-rate-limit';
import { TokenRequestError, TokenService } from './token.service';

@ApiTags('OAuth 2.0')
@Controller()
@Public()
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    private readonly keys: KeyStore,
  ) {}

  @Post(TOKEN_PATH)
  // Its bytes as sent: the route's hooks (token-form.ts) parse them strictly, once.
  @AcceptsForm('bytes')
  @HttpCode(200)
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiSecurity('clientSecretBasic')
  @ApiBody({
    type: TokenRequestDto,
    examples: {
      basic: {
        summary: 'client_secret_basic: credentials in the Authorization header',
        value: { grant_type: 'client_credentials', scope: 'enrollments users' },
      },
      post: {
        summary: 'client_secret_post: credentials in the form',
        value: { grant_type: 'client_credentials', client_id: 'acme', client_secret: 'acme-sandbox-secret' },
      },
    },
  })
  @ApiResponse({
    status: 400,
    type: OAuthErrorDto,
    description:
      'RFC 6749 §5.2: invalid_request (a body that is not application/x-www-form-urlencoded, cannot be parsed or is over 64 KiB, ' +
      'a parameter given twice, a client_id over 128 characters, a form client_id naming another client than the Basic header), unsupported_grant_type, invalid_scope',
    examples: {
      unsupportedGrant: {
        summary: 'Not client_credentials',
        value: { error: 'unsupported_grant_type', error_description: 'Only client_credentials is supported' },
      },
      invalidScope: {
        summary: 'A scope the client does not have',
        value: { error: 'invalid_scope', error_description: 'Scope not granted to this client: care' },
      },
    },
  })
  @ApiResponse({
    status: 401,
    type: OAuthErrorDto,
    description: 'invalid_client, with WWW-Authenticate',
    examples: {
      invalidClient: { summary: 'Unknown client or wrong secret', value: { error: 'invalid_client', error_description: 'Client authentication failed' } },
    },
  })
  @ApiResponse({
    status: 429,
    type: TokenRateLimitedDto,
    description:
      'Too many token requests (code 429, subCode 0): the client id, the (client id, address) failures or the source address is over its limit; retry after Retry-After seconds',
    headers: {
      'Retry-After': { description: 'Seconds until the window that was exceeded resets', schema: { type: 'integer' } },
      RateLimit: { description: 'IETF httpapi ratelimit header: "<policy>";r=<remaining>;t=<seconds>', schema: { type: 'string' } },
      'RateLimit-Policy': {
        description: 'IETF httpapi ratelimit policies: "client";q=<limit>;w=60, "client-address";q=<limit>;w=60, "address";q=<10 x limit>;w=60',
        schema: { type: 'string' },
      },
    },
    examples: {
      tooMany: {
        summary: 'Over the rate limit (default 60 requests a minute)',
        value: { ...errorExample('TOO_MANY_TOKEN_REQUESTS'), ...TOO_MANY_OAUTH_ERROR },
      },
    },
  })
  @ApiErrors(
    { 503: ['DEPENDENCY_UNAVAILABLE'] },
    { 503: 'Too many client-secret verifications are waiting on this instance: refused at once, with Retry-After' },
  )
  @ApiOperation({
    operationId: 'issueToken',
    summary: 'Client-credentials token (RFC 6749 §4.4)',
    description:
      'application/x-www-form-urlencoded: grant_type=client_credentials, optional scope; client authenticated with HTTP Basic ' +
      '(client_secret_basic) or client_id + client_secret in the form (client_secret_post). Answers RFC 6749 §5.1 / §5.2 bodies. ' +
      'Rate limited: at most the configured limit (default 60) of successful requests a minute per client id, ' +
      'that many failed client authentications a minute per (client id, source address), and ten times that of all requests per ' +
      "source address (IPv6 by its /64; behind the issuer's trusted proxy, the forwarded address), counted per service instance in fixed one-minute " +
      'windows; beyond any, 429 with Retry-After and the error envelope (code 429, subCode 0) beside the RFC 6749 error too_many_requests. Every answer carries RateLimit-Policy ' +
      '("client";q=60;w=60, "client-address";q=60;w=60, "address";q=600;w=60) and RateLimit ("<policy>";r=<remaining>;t=<seconds to ' +
      'reset>, of the policies that apply to the request the one with the fewest requests left: the address policy always, ' +
      'the client and client-address policies once the form has been read and names a client id; so an answer refused before that ' +
      '(a body that is not a form or cannot be parsed, a sandbox fault) or to a form without a client id shows the address policy), ' +
      'and Cache-Control: no-store.',
  })
  @ApiOkResponse({
    type: TokenResponseDto,
    description: 'RFC 6749 §5.1',
    examples: {
      token: {
        summary: 'A bearer token',
        value: {
          access_token: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJjbGllbnRfaWQiOiJhY21lIn0.c2ln',
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'enrollments users',
        },
      },
    },
  })
  async token(@Res({ passthrough: true }) reply: FastifyReply, @Body() { form, basic, clientId }: TokenRequest): Promise<RawResponse> {
    // The route's hooks (token-form.ts) have refused anything but a strict form and parsed it, with the Basic header, once.
    try {
      if (form.grant_type === undefined) throw new TokenRequestError('invalid_request', 'grant_type is required');
      if (basic && form.client_secret !== undefined) {
        throw new TokenRequestError('invalid_request', 'Use one client authentication method');
      }
      const secret = basic?.secret ?? form.client_secret;
      if (!clientId || secret === undefined) throw new TokenRequestError('invalid_client', 'Client authentication is required');
      if (form.grant_type !== 'client_credentials') {
        throw new TokenRequestError('unsupported_grant_type', 'Only client_credentials is supported');
      }
      const { answer, principal } = await this.tokens.issue(clientId, secret, form.scope);
      // The authenticated client, where the guard leaves a bearer call's (passport's request.user):
      // the request line names its partner (CONTRACT section 16). A refused request names none.
      (reply.request as FastifyRequest & { user?: Principal }).user = principal;
      return rawResponse(answer);
    } catch (error) {
      if (!(error instanceof TokenRequestError)) throw error;
      const status = error.error === 'invalid_client' ? 401 : 400;
      void reply.status(status);
      // Basic is the endpoint's one header scheme (RFC 6749 section 2.3.1): its challenge, however the client tried.
      if (status === 401) void reply.header('www-authenticate', 'Basic realm="enrollment-service"');
      return rawResponse({ error: error.error, error_description: error.description });
    }
  }

  @Get('.well-known/jwks.json')
  @ApiOperation({ operationId: 'getJwks', security: [], summary: 'Public keys: token signing (use sig) and encryptedUserData encryption (use enc)' })
  @ApiOkResponse({
    type: JwkSetDto,
    description: 'JWK Set (RFC 7517)',
    examples: {
      keys: {
        summary: 'Signing and encryption keys',
        value: {
          keys: [
            {
              kty: 'EC',
              crv: 'P-256',
              x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
              y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
              kid: 'sig-1',
              use: 'sig',
              alg: 'ES256',
            },
            {
              kty: 'EC',
              crv: 'P-256',
              x: 'gI0GAILBdu7T53akrFmMyGcsF3n5dO7MmwNBHKW5SV0',
              y: 'SLW_xSffzlPWrHEVI30DHM_4egVwt3NQqeUD7nMFpps',
              kid: 'enc-1',
              use: 'enc',
              alg: 'ECDH-ES',
            },
          ],
        },
      },
    },
  })
  jwks(): RawResponse {
    return rawResponse(this.keys.publicJwks());
  }

  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({ operationId: 'getAuthorizationServerMetadata', security: [], summary: 'RFC 8414 authorization server metadata' })
  @ApiOkResponse({
    type: AuthorizationServerMetadataDto,
    description: 'RFC 8414',
    examples: {
      metadata: {
        summary: 'The sandbox',
        value: {
          issuer: 'https://sandbox.example.com',
          token_endpoint: 'https://sandbox.example.com/oauth2/token',
          jwks_uri: 'https://sandbox.example.com/.well-known/jwks.json',
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          scopes_supported: ['enrollments', 'users', 'business_profiles', 'identity', 'webhooks', 'care'],
          response_types_supported: ['token'],
        },
      },
    },
  })
  metadata(): RawResponse {
    const base = this.tokens.issuer;
    return rawResponse({
      issuer: base,
      token_endpoint: `${base}${TOKEN_PATH}`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...SCOPES],
      response_types_supported: ['token'],
    });
  }
}
