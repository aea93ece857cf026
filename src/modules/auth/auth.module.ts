import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AppConfig } from '../../config/app-config';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BearerStrategy } from './bearer.strategy';
import { ScryptHasher } from './client-secret';
import { CLIENT_SECRET_VERIFIER_OPTIONS, ClientSecretVerifier, DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS } from './client-secret-verifier';
import { TokenController } from './token.controller';
import { TokenRateLimits } from './token-rate-limit';
import { TokenService } from './token.service';

@Module({
  imports: [PassportModule.register({ session: false })],
  controllers: [TokenController],
  providers: [
    ScryptHasher,
    {
      provide: CLIENT_SECRET_VERIFIER_OPTIONS,
      useFactory: (config: AppConfig) => ({ ...DEFAULT_CLIENT_SECRET_VERIFIER_OPTIONS, maxQueuedScrypt: config.env.scryptQueueLimit }),
      inject: [AppConfig],
    },
    ClientSecretVerifier,
    TokenService,
    TokenRateLimits,
    BearerStrategy,
    { provide: APP_GUARD, useClass: BearerAuthGuard },
  ],
  exports: [TokenService, TokenRateLimits],
})
export class AuthModule {}
