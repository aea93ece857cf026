import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { LockingModule } from '../locking/locking.module';
import { UserModule } from '../user/user.module';
import { IdentityController } from './controllers/identity.controller';
import { IdentityService } from './services/identity.service';

/** POST identity (ITIN) on a Matricula-enrolled user. */
@Module({
  imports: [AccountsModule, EventsModule, LockingModule, UserModule],
  controllers: [IdentityController],
  providers: [IdentityService],
})
export class IdentityModule {}
