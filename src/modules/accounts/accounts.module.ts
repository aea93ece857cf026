import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountLimitKey } from './entities/account-limit-key.entity';
import { Account } from './entities/account.entity';
import { PaymentInstrument } from './entities/payment-instrument.entity';
import { Purse } from './entities/purse.entity';
import { AccountLimitsService } from './services/account-limits.service';
import { AccountsService } from './services/accounts.service';
import { AccountRepository } from './repositories/account.repository';
import { PaymentInstrumentService } from './services/payment-instrument.service';

/**
 * Accounts, purses, cards and limit keys, and the limits; other modules use its services (the
 * repository stays inside). Knows nothing of users (AccountViewsModule joins them).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Account, Purse, PaymentInstrument, AccountLimitKey])],
  providers: [AccountRepository, AccountsService, AccountLimitsService, PaymentInstrumentService],
  exports: [AccountsService, AccountLimitsService, PaymentInstrumentService],
})
export class AccountsModule {}
