import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { rawResponse, RawResponse } from '../../common/http/envelope.interceptor';
import { SCOPES } from '../../config/service-config';
import { KeyStore } from '../../infrastructure/crypto/key-store';
import { basicCredentials } from './client-credentials';
import { TokenRequestError, TokenService } from './token.service';

interface TokenForm {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

@ApiTags('OAuth 2.0')
@Controller()
@Public()
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    private readonly keys: KeyStore,
  ) {}

  @Post('oauth2/token')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @Header('pragma', 'no-cache')
  @ApiOperation({
    summary: 'Client-credentials token (RFC 6749 §4.4)',
    description:
      'application/x-www-form-urlencoded: grant_type=client_credentials, optional scope; client authenticated with HTTP Basic ' +
      '(client_secret_basic) or client_id + client_secret in the form (client_secret_post). Answers RFC 6749 §5.1 / §5.2 bodies. ' +
      'Rate limited (CONTRACT section 12): at most TOKEN_RATE_LIMIT (default 60) requests a minute per client id, and ten times that ' +
      'per source address, counted per service instance in fixed one-minute windows; beyond either, 429 with Retry-After and the ' +
      'error envelope (code 429, subCode 0). Every answer carries RateLimit-Policy ("client";q=60;w=60, "address";q=600;w=60) ' +
      'and RateLimit ("<policy>";r=<remaining>;t=<seconds to reset>, the policy closest to its limit).',
  })
  @ApiOkResponse({ description: '{ access_token, token_type: "Bearer", expires_in, scope }' })
  @ApiResponse({
    status: 429,
    description: 'Too many token requests (code 429, subCode 0): the client id or the source address is over its limit; retry after Retry-After seconds',
    headers: {
      'Retry-After': { description: 'Seconds until the window that was exceeded resets', schema: { type: 'integer' } },
      RateLimit: { description: 'IETF httpapi ratelimit header: "<policy>";r=<remaining>;t=<seconds>', schema: { type: 'string' } },
      'RateLimit-Policy': { description: 'IETF httpapi ratelimit policies: "client";q=<limit>;w=60, "address";q=<10 x limit>;w=60', schema: { type: 'string' } },
    },
  })
  async token(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Body() body: unknown): Promise<RawResponse> {
    const form = (body && typeof body === 'object' ? body : {}) as TokenForm;
    const basic = basicCredentials(request.headers.authorization);
    try {
      if (form.grant_type === undefined) throw new TokenRequestError('invalid_request', 'grant_type is required');
      if (basic && form.client_secret !== undefined) {
        throw new TokenRequestError('invalid_request', 'Use one client authentication method');
      }
      const clientId = basic?.id ?? form.client_id;
      const secret = basic?.secret ?? form.client_secret;
      if (!clientId || secret === undefined) throw new TokenRequestError('invalid_client', 'Client authentication is required');
      if (form.grant_type !== 'client_credentials') {
        throw new TokenRequestError('unsupported_grant_type', 'Only client_credentials is supported');
      }
      return rawResponse(await this.tokens.issue(String(clientId), String(secret), form.scope === undefined ? undefined : String(form.scope)));
    } catch (error) {
      if (!(error instanceof TokenRequestError)) throw error;
      const status = error.error === 'invalid_client' ? 401 : 400;
      void reply.status(status);
      if (status === 401) void reply.header('www-authenticate', basic ? 'Basic realm="enrollment-service"' : 'Bearer realm="enrollment-service"');
      return rawResponse({ error: error.error, error_description: error.description });
    }
  }

  @Get('.well-known/jwks.json')
  @ApiOperation({ summary: 'Public keys: token signing (use sig) and encryptedUserData encryption (use enc)' })
  jwks(): RawResponse {
    return rawResponse(this.keys.publicJwks());
  }

  @Get('.well-known/oauth-authorization-server')
  @ApiOperation({ summary: 'RFC 8414 authorization server metadata' })
  metadata(): RawResponse {
    const base = this.tokens.issuer;
    return rawResponse({
      issuer: base,
      token_endpoint: `${base}/oauth2/token`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...SCOPES],
      response_types_supported: ['token'],
    });
  }
}
