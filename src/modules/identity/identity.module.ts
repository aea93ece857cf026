import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { UserModule } from '../user/user.module';
import { IdentityController } from './controllers/identity.controller';
import { IdentityService } from './services/identity.service';

/** POST identity (ITIN); accounts, limits, locks and the outbox come from their global modules. */
@Module({
  imports: [AccountsModule, UserModule],
  controllers: [IdentityController],
  providers: [IdentityService],
})
export class IdentityModule {}
