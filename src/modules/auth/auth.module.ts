import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BearerStrategy } from './bearer.strategy';
import { TokenController } from './token.controller';
import { TokenService } from './token.service';

@Module({
  imports: [PassportModule.register({ session: false })],
  controllers: [TokenController],
  providers: [TokenService, BearerStrategy, { provide: APP_GUARD, useClass: BearerAuthGuard }],
  exports: [TokenService],
})
export class AuthModule {}
