import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createLocalJWKSet, createRemoteJWKSet, JWTPayload, jwtVerify, JWTVerifyGetKey } from 'jose';
import { AppConfig } from '../../config/app-config';
import { PartnerConfig, Scope, SCOPES } from '../../config/service-config';
import { Principal } from '../../common/context/request-context';
import { KeyStore } from '../../infrastructure/crypto/key-store';
import { ClientSecretVerifier } from './client-secret-verifier';

export type TokenErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

export class TokenRequestError extends Error {
  constructor(
    readonly error: TokenErrorCode,
    readonly description: string,
  ) {
    super(error);
  }
}

/** CONTRACT section 3: a token is refused once its `iat` is older than TOKEN_TTL_SECONDS plus this, whatever its `exp`. */
export const TOKEN_AGE_LEEWAY_SECONDS = 60;

/**
 * RFC 6749 §5.2's invalid_scope text: the service's own scopes the client was refused, by name; any
 * other word the request carried is not repeated back (it is the caller's text, of any length).
 */
function invalidScopeDescription(refused: readonly string[]): string {
  const named = [...new Set(refused.filter((scope): scope is Scope => (SCOPES as readonly string[]).includes(scope)))];
  const others = new Set(refused).size > named.length;
  if (named.length === 0) return 'Requested scopes are unknown';
  return `Scope not granted to this client: ${named.join(' ')}${others ? '; other requested scopes are unknown' : ''}`;
}

/** A token that verified, and until when (Unix seconds) it may be admitted. */
interface Verified {
  payload: JWTPayload;
  validUntil: number;
}

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** A token issued: the RFC 6749 §5.1 answer, and the client that authenticated for it. */
export interface Issued {
  answer: IssuedToken;
  principal: Principal;
}

/** Client-credentials tokens (RFC 6749 §4.4) as RFC 9068 JWTs signed with the service key. */
@Injectable()
export class TokenService {
  /**
   * Verified bearer tokens, until the first of their `exp`, `iat` + TOKEN_TTL_SECONDS + 60 and a
   * retired signing key's end: the guard then skips the ES256 verification (the largest CPU cost
   * of a token-guarded call). Only a token that verified is ever cached; a changed byte is another
   * key, and an entry past its end is never served.
   */
  private readonly verified = new LRUCache<string, { principal: Principal; expiresAtMs: number }>({ max: 10_000 });
  private readonly localKeys: JWTVerifyGetKey;
  private readonly externalKeys?: JWTVerifyGetKey;

  constructor(
    private readonly config: AppConfig,
    private readonly keys: KeyStore,
    private readonly clientSecrets: ClientSecretVerifier,
  ) {
    this.localKeys = createLocalJWKSet(keys.publicJwks());
    const { issuer, jwksUri } = config.env.oauth;
    if (issuer && jwksUri) this.externalKeys = createRemoteJWKSet(new URL(jwksUri));
  }

  get issuer(): string {
    return this.config.env.publicUrl;
  }

  get audience(): string {
    return `${this.config.env.publicUrl}/v1`;
  }

  async issue(clientId: string, clientSecret: string, requestedScope: string | undefined): Promise<Issued> {
    const partner = this.config.service.partnerByClientId(clientId);
    // An unknown id is verified against dummy credentials, so timing does not reveal which ids exist.
    const valid = await this.clientSecrets.verify(partner, clientSecret);
    if (!partner || !valid) throw new TokenRequestError('invalid_client', 'Client authentication failed');
    const scopes = this.grantScopes(partner, requestedScope);
    const now = Math.floor(Date.now() / 1000);
    const ttl = this.config.env.tokenTtlSeconds;
    // RFC 9068 access token: typ at+jwt, with iss, sub, aud, iat, exp, jti and client_id.
    const token = await this.keys.signJwt('at+jwt', {
      client_id: partner.clientId,
      scope: scopes.join(' '),
      iss: this.issuer,
      sub: partner.clientId,
      aud: this.audience,
      iat: now,
      exp: now + ttl,
      jti: randomUUID(),
    });
    return {
      answer: { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: scopes.join(' ') },
      principal: { partner, clientId: partner.clientId, scopes },
    };
  }

  private grantScopes(partner: PartnerConfig, requested: string | undefined): Scope[] {
    if (requested === undefined || requested.trim() === '') return [...partner.scopes];
    const asked = requested.trim().split(/\s+/);
    const refused = asked.filter((scope) => !partner.scopes.includes(scope as Scope));
    if (refused.length > 0) throw new TokenRequestError('invalid_scope', invalidScopeDescription(refused));
    return [...new Set(asked)] as Scope[];
  }

  /** Verifies a bearer token (ours, or the configured external issuer's) and resolves the partner. */
  async verify(token: string): Promise<Principal | null> {
    const cached = this.cachedPrincipal(token);
    if (cached) return cached;
    const verified = (await this.verifyLocal(token)) ?? (await this.verifyExternal(token));
    if (!verified) return null;
    const principal = this.principalOf(verified.payload);
    if (principal) {
      const expiresAtMs = verified.validUntil * 1000;
      this.verified.set(token, { principal, expiresAtMs }, { ttl: Math.max(1, expiresAtMs - Date.now()) });
    }
    return principal;
  }

  /** The principal of a token that verified before and has not expired; undefined for any other token. */
  cachedPrincipal(token: string): Principal | undefined {
    const cached = this.verified.get(token);
    return cached && Date.now() < cached.expiresAtMs ? cached.principal : undefined;
  }

  private principalOf(payload: JWTPayload): Principal | null {
    // RFC 9068's client_id names the partner; `sub` never stands in for it (CONTRACT section 3).
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const partner = clientId ? this.config.service.partnerByClientId(clientId) : undefined;
    if (!partner) return null;
    const tokenScopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    const scopes = partner.scopes.filter((scope) => tokenScopes.includes(scope));
    return { partner, clientId: partner.clientId, scopes };
  }

  /**
   * Until when a verified token may be admitted (Unix seconds), or null when it must be refused
   * now: past `exp`, `iat` older than TOKEN_TTL_SECONDS + 60 s or more than 60 s ahead, or signed by a previous key after
   * its retirement or more than TOKEN_TTL_SECONDS after it (CONTRACT section 3).
   */
  private admissibleUntil(payload: JWTPayload, retiredAt: number | undefined): number | null {
    const ttl = this.config.env.tokenTtlSeconds;
    const now = Date.now() / 1000;
    if (typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
    // Issued in the future beyond clock skew: its age would not count until then, and it would live past the TTL.
    if (payload.iat > now + TOKEN_AGE_LEEWAY_SECONDS) return null;
    let until = Math.min(payload.exp, payload.iat + ttl + TOKEN_AGE_LEEWAY_SECONDS);
    if (retiredAt !== undefined) {
      if (payload.iat > retiredAt) return null;
      until = Math.min(until, retiredAt + ttl);
    }
    return now < until ? until : null;
  }

  private async verifyLocal(token: string): Promise<Verified | null> {
    try {
      const { payload, protectedHeader } = await jwtVerify(token, this.localKeys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat', 'sub', 'jti', 'client_id'],
      });
      const validUntil = this.admissibleUntil(payload, this.keys.signingKeyRetiredAt(protectedHeader.kid));
      return validUntil === null ? null : { payload, validUntil };
    } catch {
      return null;
    }
  }

  /** The external issuer's RFC 9068 access tokens: its audience, typ at+jwt, and a client_id. */
  private async verifyExternal(token: string): Promise<Verified | null> {
    const { issuer, audience } = this.config.env.oauth;
    if (!this.externalKeys || !issuer || !audience) return null;
    try {
      const { payload } = await jwtVerify(token, this.externalKeys, {
        issuer,
        audience,
        algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA'],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat', 'client_id'],
      });
      const validUntil = this.admissibleUntil(payload, undefined);
      return validUntil === null ? null : { payload, validUntil };
    } catch {
      return null;
    }
  }
}
