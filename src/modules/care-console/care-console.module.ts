import { AccountViewsModule } from '../account-views/account-views.module';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { LockingModule } from '../locking/locking.module';
import { Module, Provider } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../infrastructure/time/clock';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { BusinessProfileModule } from '../business-profile/business-profile.module';
import { CareModule } from '../care/care.module';
import { UserModule } from '../user/user.module';
import { CareOidcGuard } from './auth/care-oidc.guard';
import { CareOidcStrategy } from './auth/care-oidc.strategy';
import { LoginStateCookie, SignInFormCookie } from './auth/login-state';
import { CareConsoleService } from './care-console.service';
import { ConsoleAuthController } from './console-auth.controller';
import { ConsoleGate } from './console-gate';
import { ConsoleController } from './console.controller';

/** The identity provider's strategy exists only when CARE_OAUTH_* configure one. */
const oidcStrategy: Provider = {
  provide: CareOidcStrategy,
  inject: [AppConfig, Clock, LoginStateCookie],
  useFactory: (config: AppConfig, clock: Clock, logins: LoginStateCookie) =>
    config.env.careConsole.oauth ? new CareOidcStrategy(config, clock, logins) : null,
};

/** The care console at /care (issue 15, CONTRACT section 14): HTML pages over the care services. */
@Module({
  imports: [
    PassportModule.register({ session: false }),
    AccountsModule,
    AccountViewsModule,
    AuthModule,
    AuditModule,
    CareModule,
    EventsModule,
    LockingModule,
    UserModule,
    BusinessProfileModule,
  ],
  controllers: [ConsoleAuthController, ConsoleController],
  providers: [oidcStrategy, LoginStateCookie, SignInFormCookie, CareOidcGuard, ConsoleGate, CareConsoleService],
})
export class CareConsoleModule {}
