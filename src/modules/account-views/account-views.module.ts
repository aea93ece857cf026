import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { UserModule } from '../user/user.module';
import { AccountUsersController } from './controllers/account-users.controller';
import { AccountReadRepository } from './repositories/account-read.repository';
import { AccountViewService } from './services/account-view.service';

/**
 * The partner-facing read models that join accounts and users: the account view (GET account, and
 * the enrollment and care answers) and GET users of an account, each read in one statement.
 */
@Module({
  imports: [AccountsModule, UserModule],
  controllers: [AccountUsersController],
  providers: [AccountReadRepository, AccountViewService],
  exports: [AccountViewService],
})
export class AccountViewsModule {}
