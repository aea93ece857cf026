import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountLimitKey } from './entities/account-limit-key.entity';
import { Account } from './entities/account.entity';
import { PaymentInstrument } from './entities/payment-instrument.entity';
import { Purse } from './entities/purse.entity';
import { AccountLimitsService } from './services/account-limits.service';
import { AccountRepository } from './repositories/account.repository';
import { PaymentInstrumentService } from './services/payment-instrument.service';

/** Accounts, purses, cards and limit keys: their repositories and the limits. Knows nothing of users (AccountViewsModule joins them). */
@Module({
  imports: [TypeOrmModule.forFeature([Account, Purse, PaymentInstrument, AccountLimitKey])],
  providers: [AccountRepository, AccountLimitsService, PaymentInstrumentService],
  exports: [AccountRepository, AccountLimitsService, PaymentInstrumentService],
})
export class AccountsModule {}
