import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountViewsModule } from '../account-views/account-views.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { LockingModule } from '../locking/locking.module';
import { BusinessProfileModule } from '../business-profile/business-profile.module';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { ScreeningModule } from '../screening/screening.module';
import { UserModule } from '../user/user.module';
import { ScanCapture } from './entities/scan-capture.entity';
import { EnrollmentController } from './controllers/enrollment.controller';
import { ScanCaptureController } from './controllers/scan-capture.controller';
import { KYC_PROVIDER } from './kyc/kyc-provider';
import { SandboxKycProvider } from './kyc/sandbox-kyc.provider';
import { EnrollmentProgressRepository } from './repositories/enrollment-progress.repository';
import { EnrollmentCompletionService } from './services/enrollment-completion.service';
import { EnrollmentRulesService } from './services/enrollment-rules.service';
import { EnrollmentWriter } from './services/enrollment-writer';
import { EnrollmentRequestsService } from './services/enrollment-requests.service';
import { EnrollmentService } from './services/enrollment.service';
import { ScanCapturePurge } from './services/scan-capture-purge';
import { ScanCaptureService } from './services/scan-capture.service';

/** Exports EnrollmentService so care's OFAC clearance completes a held enrollment and stores its answer. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ScanCapture]),
    AccountsModule,
    AuthModule,
    AuditModule,
    EventsModule,
    IdempotencyModule,
    LifecycleModule,
    LockingModule,
    BusinessProfileModule,
    UserModule,
    AccountViewsModule,
    ScreeningModule,
  ],
  controllers: [EnrollmentController, ScanCaptureController],
  providers: [
    EnrollmentRulesService,
    EnrollmentService,
    EnrollmentRequestsService,
    EnrollmentWriter,
    EnrollmentProgressRepository,
    EnrollmentCompletionService,
    ScanCaptureService,
    ScanCapturePurge,
    { provide: KYC_PROVIDER, useClass: SandboxKycProvider },
  ],
  exports: [EnrollmentService],
})
export class EnrollmentModule {}
