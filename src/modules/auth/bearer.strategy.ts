import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { Principal } from '../../common/context/request-context';
import { TokenService } from './token.service';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokenService) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.tokens.verify(token)) ?? false;
  }
}
