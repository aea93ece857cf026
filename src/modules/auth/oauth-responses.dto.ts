import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ErrorDetailDto } from '../../common/openapi/envelope.dto';
import { SCOPES } from '../../config/service-config';

@ApiSchema({ name: 'TokenRequest', description: 'RFC 6749 §4.4.2; the client authenticates with HTTP Basic or client_id + client_secret here' })
export class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'], example: 'client_credentials' }) grant_type: string;
  @ApiPropertyOptional({ description: 'Space-separated subset of the client scopes; all of them when omitted', example: 'enrollments users' }) scope?: string;
  @ApiPropertyOptional({ description: 'client_secret_post only', example: 'acme' }) client_id?: string;
  @ApiPropertyOptional({ description: 'client_secret_post only', example: 'acme-sandbox-secret' }) client_secret?: string;
}

@ApiSchema({ name: 'TokenResponse', description: 'RFC 6749 §5.1' })
export class TokenResponseDto {
  @ApiProperty({ description: 'JWT (RFC 9068 profile)', example: 'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJjbGllbnRfaWQiOiJhY21lIn0.c2ln' })
  access_token: string;
  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' }) token_type: string;
  @ApiProperty({ type: 'integer', example: 3600 }) expires_in: number;
  @ApiProperty({ example: 'enrollments users business_profiles identity webhooks' }) scope: string;
}

@ApiSchema({ name: 'OAuthError', description: 'RFC 6749 §5.2' })
export class OAuthErrorDto {
  @ApiProperty({
    enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'],
    example: 'invalid_client',
  })
  error: string;
  @ApiPropertyOptional({ example: 'Client authentication failed' }) error_description?: string;
}

/** CONTRACT section 2: the token 429 answers responseDetails 429/0 beside the RFC 6749 error. */
@ApiSchema({ name: 'TokenRateLimited', description: 'The error envelope with 429/0, beside the RFC 6749 error too_many_requests and its description' })
export class TokenRateLimitedDto {
  @ApiProperty({ example: 'req-20261121-0001' }) requestId: string;
  @ApiProperty({ type: [ErrorDetailDto], minItems: 1 }) responseDetails: ErrorDetailDto[];
  @ApiProperty({ enum: ['too_many_requests'], example: 'too_many_requests' }) error: string;
  @ApiProperty({ example: 'Too many token requests; retry after Retry-After seconds' }) error_description: string;
}

@ApiSchema({ name: 'Jwk', description: 'A public JWK: EC P-256 signing (use sig, ES256) or encryption (use enc, ECDH-ES) key' })
export class JwkDto {
  @ApiProperty({ example: 'EC' }) kty: string;
  @ApiPropertyOptional({ example: 'P-256' }) crv?: string;
  @ApiPropertyOptional({ example: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU' }) x?: string;
  @ApiPropertyOptional({ example: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }) y?: string;
  @ApiPropertyOptional({ example: 'sig-2026-11' }) kid?: string;
  @ApiPropertyOptional({ enum: ['sig', 'enc'], example: 'sig' }) use?: string;
  @ApiPropertyOptional({ example: 'ES256' }) alg?: string;
}

@ApiSchema({ name: 'JwkSet' })
export class JwkSetDto {
  @ApiProperty({ type: [JwkDto] }) keys: JwkDto[];
}

@ApiSchema({ name: 'AuthorizationServerMetadata', description: 'RFC 8414' })
export class AuthorizationServerMetadataDto {
  @ApiProperty({ example: 'https://sandbox.example.com' }) issuer: string;
  @ApiProperty({ example: 'https://sandbox.example.com/oauth2/token' }) token_endpoint: string;
  @ApiProperty({ example: 'https://sandbox.example.com/.well-known/jwks.json' }) jwks_uri: string;
  @ApiProperty({ type: [String], example: ['client_credentials'] }) grant_types_supported: string[];
  @ApiProperty({ type: [String], example: ['client_secret_basic', 'client_secret_post'] }) token_endpoint_auth_methods_supported: string[];
  @ApiProperty({ type: [String], example: [...SCOPES] }) scopes_supported: string[];
  @ApiPropertyOptional({ type: [String], example: ['token'] }) response_types_supported?: string[];
}
