import { Global, Module } from '@nestjs/common';
import { EventLogService } from './event-log.service';
import { HousekeepingService } from './housekeeping.service';
import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookSender } from './webhook-sender';

/**
 * Global: every module that changes state emits its events through OutboxService in its own
 * transaction. Also home of the service's recurring housekeeping jobs.
 */
@Global()
@Module({
  providers: [OutboxRepository, OutboxService, WebhookSender, WebhookDispatcher, EventLogService, HousekeepingService],
  exports: [OutboxService, EventLogService],
})
export class EventsModule {}
