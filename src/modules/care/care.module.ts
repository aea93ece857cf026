import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AccountViewsModule } from '../account-views/account-views.module';
import { AccountsModule } from '../accounts/accounts.module';
import { BusinessProfileModule } from '../business-profile/business-profile.module';
import { EnrollmentModule } from '../enrollment/enrollment.module';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { LockingModule } from '../locking/locking.module';
import { UserModule } from '../user/user.module';
import { CareController } from './care.controller';
import { CardProcessor, SandboxCardProcessor } from './services/card-processor';
import { CardReplacementService } from './services/card-replacement.service';
import { CardUnblockService } from './services/card-unblock.service';
import { CareActionRunner } from './services/care-action-runner';
import { CareOperationsService } from './services/care-operations.service';

/** Care operations of CONTRACT section 8 (scope care), their audit trail and the durable card-unblock retries. */
@Module({
  imports: [AccountsModule, AccountViewsModule, AuditModule, EnrollmentModule, LifecycleModule, BusinessProfileModule, UserModule, LockingModule],
  controllers: [CareController],
  providers: [CareActionRunner, CareOperationsService, CardUnblockService, CardReplacementService, { provide: CardProcessor, useClass: SandboxCardProcessor }],
  // The care console drives the same operations through these public methods.
  exports: [CareActionRunner, CareOperationsService, CardUnblockService, CardReplacementService],
})
export class CareModule {}
