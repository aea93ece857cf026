import { Body, Controller, Get, Header, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { rawResponse, RawResponse } from '../../common/http/envelope.interceptor';
import { SCOPES } from '../../config/service-config';
import { KeyStore } from '../../infrastructure/crypto/key-store';
import { TokenRequestError, TokenService } from './token.service';

interface TokenForm {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      return value;
    }
  };
  return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
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
      '(client_secret_basic) or client_id + client_secret in the form (client_secret_post). Answers RFC 6749 §5.1 / §5.2 bodies.',
  })
  @ApiOkResponse({ description: '{ access_token, token_type: "Bearer", expires_in, scope }' })
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
