import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserModule } from '../user/user.module';
import { AccountLimitKey } from './entities/account-limit-key.entity';
import { Account } from './entities/account.entity';
import { PaymentInstrument } from './entities/payment-instrument.entity';
import { Purse } from './entities/purse.entity';
import { AccountLimitsService } from './services/account-limits.service';
import { AccountRepository } from './repositories/account.repository';
import { AccountReadRepository } from './repositories/account-read.repository';
import { AccountViewService } from './services/account-view.service';
import { PaymentInstrumentService } from './services/payment-instrument.service';

/** Accounts, purses, cards and limit keys: their repositories, the limits, and the views partners read. */
@Module({
  imports: [TypeOrmModule.forFeature([Account, Purse, PaymentInstrument, AccountLimitKey]), UserModule],
  providers: [AccountReadRepository, AccountRepository, AccountLimitsService, AccountViewService, PaymentInstrumentService],
  exports: [AccountRepository, AccountLimitsService, AccountViewService, PaymentInstrumentService],
})
export class AccountsModule {}
