import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserModule } from '../user/user.module';
import { AccountLimitKey } from './entities/account-limit-key.entity';
import { Account } from './entities/account.entity';
import { PaymentInstrument } from './entities/payment-instrument.entity';
import { Purse } from './entities/purse.entity';
import { ScanCapture } from './entities/scan-capture.entity';
import { AccountLimitsService } from './services/account-limits.service';
import { AccountRecordsService } from './services/account-records.service';
import { AccountReadRepository } from './repositories/account-read.repository';
import { AccountViewService } from './services/account-view.service';
import { PartnerViewService } from './services/partner-view.service';
import { PaymentInstrumentService } from './services/payment-instrument.service';

/**
 * Account persistence and views. Global because user profile, identity, business profile and care
 * all read accounts while UserModule is imported here for the user view (no import cycle).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([Account, Purse, PaymentInstrument, AccountLimitKey, ScanCapture]), UserModule],
  providers: [AccountReadRepository, AccountRecordsService, AccountLimitsService, AccountViewService, PartnerViewService, PaymentInstrumentService],
  exports: [AccountRecordsService, AccountLimitsService, AccountViewService, PartnerViewService, PaymentInstrumentService],
})
export class AccountsModule {}
