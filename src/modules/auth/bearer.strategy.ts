import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { decodeJwt } from 'jose';
import { LRUCache } from 'lru-cache';
import { Strategy } from 'passport-http-bearer';
import { Principal } from '../../common/context/request-context';
import { AppConfig } from '../../config/app-config';
import { TokenService } from './token.service';

const MAX_CACHED_TOKENS = 10_000;
/** CONTRACT section 3: a token is refused once its iat is older than TOKEN_TTL_SECONDS + this. */
const IAT_GRACE_SECONDS = 60;

/**
 * The bearer guard's verification (passport-http-bearer, then jose through TokenService.verify) and
 * the one cache of verified tokens: a token that verified is admitted again without its signature
 * check until its `exp` or `iat + TOKEN_TTL_SECONDS + 60 s`, whichever comes first, and never after.
 * A changed byte is another key; a token that failed is never cached.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  private readonly verified = new LRUCache<string, { principal: Principal; untilMs: number }>({ max: MAX_CACHED_TOKENS });

  constructor(
    private readonly tokens: TokenService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    const cached = this.verified.get(token);
    if (cached && Date.now() < cached.untilMs) return cached.principal;
    const principal = await this.tokens.verify(token);
    if (!principal) return false;
    const untilMs = this.cacheableUntil(token);
    if (untilMs > Date.now()) this.verified.set(token, { principal, untilMs }, { ttl: untilMs - Date.now() });
    return principal;
  }

  /** When a verified token stops being admitted from the cache (its claims are trusted: it just verified). */
  private cacheableUntil(token: string): number {
    const { exp, iat } = decodeJwt(token);
    const issuedAt = typeof iat === 'number' ? iat : Math.floor(Date.now() / 1000);
    const iatBound = (issuedAt + this.config.env.tokenTtlSeconds + IAT_GRACE_SECONDS) * 1000;
    return typeof exp === 'number' ? Math.min(exp * 1000, iatBound) : iatBound;
  }
}
