import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { Principal } from '../../common/context/request-context';
import { TokenService } from './token.service';

/**
 * The bearer guard's verification: passport-http-bearer takes the token from the header, and
 * TokenService.verify checks it with jose, through the one cache of verified tokens (its entries end
 * at the first of `exp`, `iat` + TOKEN_TTL_SECONDS + 60 s and a retired signing key's end).
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokenService) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.tokens.verify(token)) ?? false;
  }
}
