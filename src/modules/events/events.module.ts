import { Global, Module } from '@nestjs/common';
import { EventLogService } from './event-log.service';
import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookSender } from './webhook-sender';

/** Global: every module that changes state emits its events through OutboxService in its own transaction. */
@Global()
@Module({
  providers: [OutboxRepository, OutboxService, WebhookSender, WebhookDispatcher, EventLogService],
  exports: [OutboxService, EventLogService],
})
export class EventsModule {}
