import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { EventsModule } from '../events/events.module';
import { LifecycleWriter } from './lifecycle.writer';

/** Account and card state: the pure transitions (`account-lifecycle.ts`) and their one writer. */
@Module({
  imports: [AccountsModule, EventsModule],
  providers: [LifecycleWriter],
  exports: [LifecycleWriter],
})
export class LifecycleModule {}
