import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { LoggerModule } from 'nestjs-pino';
import { RequestContextModule } from './common/context/request-context.module';
import { parseSandboxFaults, SANDBOX_FAULT_HEADER, SANDBOX_FAULTS } from './common/context/sandbox-faults';
import { GlobalExceptionFilter } from './common/http/exception.filter';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CryptoModule } from './infrastructure/crypto/crypto.module';
import { DatabaseModule } from './infrastructure/database/database.module';
import { loggerParams } from './infrastructure/logging/logging';
import { Metrics } from './infrastructure/metrics/metrics';
import { MetricsModule } from './infrastructure/metrics/metrics.module';
import { TimeModule } from './infrastructure/time/time.module';
import { JobsModule } from './infrastructure/queue/jobs.module';
import { AccountViewsModule } from './modules/account-views/account-views.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AuthModule } from './modules/auth/auth.module';
import { BusinessProfileModule } from './modules/business-profile/business-profile.module';
import { CareModule } from './modules/care/care.module';
import { CareConsoleModule } from './modules/care-console/care-console.module';
import { EnrollmentModule } from './modules/enrollment/enrollment.module';
import { ErrorDocsModule } from './modules/error-docs/error-docs.module';
import { SandboxModule } from './modules/sandbox/sandbox.module';
import { EventsModule } from './modules/events/events.module';
import { HealthModule } from './modules/health/health.module';
import { IdentityModule } from './modules/identity/identity.module';
import { UserModule } from './modules/user/user.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

/** Resource modules; each registers its own controllers and exports only its services. */
const FEATURE_MODULES = [
  AuthModule,
  HealthModule,
  AccountsModule,
  EnrollmentModule,
  BusinessProfileModule,
  UserModule,
  AccountViewsModule,
  IdentityModule,
  JobsModule,
  EventsModule,
  WebhooksModule,
  CareModule,
  CareConsoleModule,
  ErrorDocsModule,
];

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, metrics: Metrics): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ClsModule.forRoot({
          global: true,
          middleware: {
            mount: true,
            setup: (cls, req: { requestId?: string; headers: Record<string, string | string[] | undefined> }) => {
              cls.set('requestId', req.requestId);
              cls.set(SANDBOX_FAULTS, parseSandboxFaults(req.headers[SANDBOX_FAULT_HEADER]));
            },
          },
        }),
        LoggerModule.forRoot(loggerParams(config.env.logLevel)),
        MetricsModule.forRoot(metrics),
        RequestContextModule,
        TimeModule,
        DatabaseModule,
        CryptoModule,
        ...FEATURE_MODULES,
        // Sandbox tools exist only in sandbox mode: in production their routes are unknown (404).
        ...(config.isSandbox ? [SandboxModule] : []),
      ],
      providers: [
        { provide: APP_FILTER, useClass: GlobalExceptionFilter },
        // The one global interceptor: every route answers the envelope. Locks and idempotency are the CallRunner's.
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
      ],
    };
  }
}
