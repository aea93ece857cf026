import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { LockingModule } from '../locking/locking.module';
import { UserProfileController } from './controllers/user-profile.controller';
import { UserAddress } from './entities/user-address.entity';
import { UserPhone } from './entities/user-phone.entity';
import { User } from './entities/user.entity';
import { LockedUserRepository } from './repositories/locked-user.repository';
import { UserRepository } from './repositories/user.repository';
import { UserContactUpdater } from './services/user-contact-updater';
import { UserProfileService } from './services/user-profile.service';
import { UserRecordsService } from './services/user-records.service';
import { UserViewService } from './services/user-view.service';

/**
 * Users, their addresses and phones: the only module that writes their tables (its repositories,
 * which stay inside; other modules call UserRecordsService), the user update, and how a user is
 * rendered for a partner (UserViewService).
 */
@Module({
  imports: [TypeOrmModule.forFeature([User, UserAddress, UserPhone]), AccountsModule, EventsModule, LockingModule],
  controllers: [UserProfileController],
  providers: [UserRepository, LockedUserRepository, UserContactUpdater, UserProfileService, UserRecordsService, UserViewService],
  exports: [UserRecordsService, UserViewService],
})
export class UserModule {}
