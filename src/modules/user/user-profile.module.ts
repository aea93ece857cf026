import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { LockingModule } from '../locking/locking.module';
import { UserProfileController } from './controllers/user-profile.controller';
import { UserContactUpdater } from './services/user-contact-updater';
import { UserProfileService } from './services/user-profile.service';
import { UserModule } from './user.module';

/** The partner-facing user endpoints; persistence stays in UserModule's UserRepository. */
@Module({
  imports: [AccountsModule, EventsModule, LockingModule, UserModule],
  controllers: [UserProfileController],
  providers: [UserProfileService, UserContactUpdater],
})
export class UserProfileModule {}
