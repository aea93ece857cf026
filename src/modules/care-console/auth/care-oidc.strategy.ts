import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { decodeJwt, JWTPayload } from 'jose';
import { Strategy } from 'passport-oauth2';
import { AppConfig } from '../../../config/app-config';
import type { CareConsoleEnv } from '../../../config/env';

export const CARE_OIDC = 'care-oidc';

/** The staff member the identity provider vouched for, before the console gives them programs. */
export interface ProviderIdentity {
  subject: string;
  email: string | null;
  name: string | null;
}

/** Refusals of a sign-in the provider completed: the person is not (or not verifiably) care staff. */
export class StaffNotAllowedError extends Error {
  constructor(readonly reason: 'group' | 'claims') {
    super(reason === 'group' ? 'not in the allowed group' : 'the identity could not be verified');
  }
}

type ProviderConfig = NonNullable<CareConsoleEnv['oauth']>;

/**
 * OAuth 2.0 authorization code with PKCE (S256) and `state`, both kept in the server-side session
 * by passport-oauth2's own store, against the bank's identity provider (CARE_OAUTH_*). The staff
 * member's claims come from the userinfo endpoint when one is configured, else from the ID token
 * of the token response (received straight from the token endpoint; its audience and expiry are
 * checked). Only members of CARE_OAUTH_ALLOWED_GROUP (claim CARE_OAUTH_GROUP_CLAIM) get in.
 */
@Injectable()
export class CareOidcStrategy extends PassportStrategy(Strategy, CARE_OIDC, 5) {
  private readonly provider: ProviderConfig;

  constructor(config: AppConfig) {
    const provider = config.env.careConsole.oauth as ProviderConfig;
    super({
      authorizationURL: provider.authorizationUrl,
      tokenURL: provider.tokenUrl,
      clientID: provider.clientId,
      clientSecret: provider.clientSecret ?? '',
      callbackURL: `${config.env.publicUrl}/care/auth/callback`,
      scope: provider.scope.split(' '),
      state: true,
      pkce: true,
      sessionKey: 'careOidc',
    });
    this.provider = provider;
  }

  async validate(accessToken: string, _refreshToken: string, params: { id_token?: string }): Promise<ProviderIdentity> {
    const claims = this.provider.userinfoUrl ? await this.userinfo(accessToken) : this.idTokenClaims(params.id_token);
    if (typeof claims.sub !== 'string' || claims.sub === '') throw new StaffNotAllowedError('claims');
    if (!memberOf(claims[this.provider.groupClaim], this.provider.allowedGroup)) throw new StaffNotAllowedError('group');
    return {
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : null,
      name: typeof claims.name === 'string' ? claims.name : null,
    };
  }

  private async userinfo(accessToken: string): Promise<JWTPayload> {
    const res = await fetch(this.provider.userinfoUrl as string, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new StaffNotAllowedError('claims');
    return (await res.json()) as JWTPayload;
  }

  private idTokenClaims(idToken: string | undefined): JWTPayload {
    if (!idToken) throw new StaffNotAllowedError('claims');
    const claims = decodeJwt(idToken);
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audience.includes(this.provider.clientId) || typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now())
      throw new StaffNotAllowedError('claims');
    return claims;
  }
}

/** A group or role claim: an array of names, or one name, or a space-separated list. */
export function memberOf(claim: unknown, group: string): boolean {
  if (Array.isArray(claim)) return claim.includes(group);
  return typeof claim === 'string' && claim.split(' ').includes(group);
}
