import { Injectable, Logger } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, JWTPayload } from 'jose';
import { Strategy } from 'passport-oauth2';
import { AppConfig } from '../../../config/app-config';
import type { CareConsoleEnv } from '../../../config/env';
import { Clock } from '../../../infrastructure/time/clock';
import { LOGIN_CALLBACK_PATH, LoginStateCookie } from './login-state';

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

/** What CareOidcGuard hands passport for one request (passport-oauth2's `authenticate` options). */
export type CareOidcOptions = {
  /** Sign-in start: the `state`, nonce and S256 challenge of the login cookie just set. */
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  /** Callback: the PKCE verifier of the login cookie whose `state` came back. */
  codeVerifier?: string;
};

/**
 * OpenID Connect authorization code flow with PKCE (S256), `state` and nonce against the bank's
 * identity provider (CARE_OAUTH_*). passport-oauth2 builds the authorization URL and exchanges the
 * code; the state, nonce and verifier are CareOidcGuard's (a signed cookie, LoginStateCookie), so
 * passport keeps nothing in a session. The ID token of the token response is verified before
 * anything else is believed: signature against CARE_OAUTH_JWKS_URL, `iss` CARE_OAUTH_ISSUER, `aud`
 * the client id, `exp`, and the nonce of this browser's sign-in. The staff member's claims come
 * from the userinfo endpoint when one is configured (its `sub` must be the ID token's), else from
 * the ID token. Only members of CARE_OAUTH_ALLOWED_GROUP (claim CARE_OAUTH_GROUP_CLAIM) get in.
 */
@Injectable()
export class CareOidcStrategy extends PassportStrategy(Strategy, CARE_OIDC, 6) {
  private readonly logger = new Logger('CareConsole');
  private readonly provider: ProviderConfig;
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    config: AppConfig,
    private readonly clock: Clock,
    private readonly logins: LoginStateCookie,
  ) {
    const provider = config.env.careConsole.oauth as ProviderConfig;
    super({
      authorizationURL: provider.authorizationUrl,
      tokenURL: provider.tokenUrl,
      clientID: provider.clientId,
      clientSecret: provider.clientSecret ?? '',
      callbackURL: `${config.env.publicUrl}${LOGIN_CALLBACK_PATH}`,
      scope: provider.scope.split(' '),
      passReqToCallback: true,
    });
    this.provider = provider;
    this.jwks = createRemoteJWKSet(new URL(provider.jwksUrl));
  }

  override authorizationParams(options: CareOidcOptions): object {
    return { nonce: options.nonce, code_challenge: options.codeChallenge, code_challenge_method: 'S256' };
  }

  override tokenParams(options: CareOidcOptions): object {
    return { code_verifier: options.codeVerifier };
  }

  async validate(request: FastifyRequest, accessToken: string, _refreshToken: string, params: { id_token?: unknown }): Promise<ProviderIdentity> {
    const query = request.query as Record<string, unknown> | undefined;
    const idToken = await this.verifiedIdToken(params.id_token, this.logins.match(request, query?.state)?.nonce);
    const claims = this.provider.userinfoUrl ? await this.userinfo(accessToken) : idToken;
    if (typeof claims.sub !== 'string' || claims.sub === '' || claims.sub !== idToken.sub) throw new StaffNotAllowedError('claims');
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

  /** OpenID Connect Core 3.1.3.7, through jose's jwtVerify: an unsigned, forged, foreign, stale or replayed ID token is refused. */
  private async verifiedIdToken(idToken: unknown, nonce: string | undefined): Promise<JWTPayload> {
    if (typeof idToken !== 'string' || nonce === undefined) throw new StaffNotAllowedError('claims');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.jwks, {
        issuer: this.provider.issuer,
        audience: this.provider.clientId,
        requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
        currentDate: this.clock.now(),
      }));
    } catch (error) {
      if (!(error instanceof joseErrors.JOSEError)) throw error;
      // The JOSE code says which check failed (signature, issuer, expiry…); the token itself is never logged.
      this.logger.warn({ code: error.code }, 'care console ID token refused');
      throw new StaffNotAllowedError('claims');
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const authorizedParty = audiences.length === 1 || payload.azp === this.provider.clientId;
    if (payload.nonce !== nonce || !authorizedParty) {
      this.logger.warn({ code: payload.nonce !== nonce ? 'nonce' : 'azp' }, 'care console ID token refused');
      throw new StaffNotAllowedError('claims');
    }
    return payload;
  }
}

/** A group or role claim: an array of names, or one name, or a space-separated list. */
export function memberOf(claim: unknown, group: string): boolean {
  if (Array.isArray(claim)) return claim.includes(group);
  return typeof claim === 'string' && claim.split(' ').includes(group);
}
