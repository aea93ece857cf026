import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { RequestContextModule } from './common/context/request-context.module';
import { GlobalExceptionFilter } from './common/http/exception.filter';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CryptoModule } from './infrastructure/crypto/crypto.module';
import { KeyStore } from './infrastructure/crypto/key-store';
import { DatabaseModule } from './infrastructure/database/database.module';
import { Metrics } from './infrastructure/metrics/metrics';
import { DatabasePoolMetricsModule, MetricsModule } from './infrastructure/metrics/metrics.module';
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
  /** `keys`: loaded by createApp before the app is built; null only in preview mode (the OpenAPI export). */
  static forRoot(config: AppConfig, metrics: Metrics, keys: KeyStore | null): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        MetricsModule.forRoot(metrics),
        RequestContextModule,
        TimeModule,
        DatabaseModule,
        DatabasePoolMetricsModule,
        CryptoModule.forRoot(keys),
        ...FEATURE_MODULES,
        // Sandbox tools exist only in sandbox mode: in production their routes are unknown (404).
        ...(config.isSandbox ? [SandboxModule] : []),
      ],
      // The HTTP edge: the envelope of every error (GlobalExceptionFilter); that of every answer is a
      // Fastify hook (answer.ts, installEnvelope). No Nest middleware: the request context and the
      // request log line come from Fastify hooks; locks and idempotency from the CallRunner.
      providers: [{ provide: APP_FILTER, useClass: GlobalExceptionFilter }],
    };
  }
}
