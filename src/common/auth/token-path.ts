/**
 * The token endpoint's path (CONTRACT section 3), in one place: its route (auth module), its hooks
 * and rate limit, the headers every token-path answer carries (request-scope.ts), the RFC 8414
 * metadata and the OpenAPI document's security scheme.
 */
export const TOKEN_PATH = '/oauth2/token';
