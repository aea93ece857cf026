import { Module } from '@nestjs/common';
import { EventLogService } from './event-log.service';
import { HousekeepingService } from './housekeeping.service';
import { OutboxMetrics } from './outbox.metrics';
import { OutboxRepository } from './outbox.repository';
import { OutboxService } from './outbox.service';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookSender } from './webhook-sender';

/**
 * The transactional outbox: modules that change state import it and emit their events through
 * OutboxService in their own transaction. Also home of webhook delivery and the retention purges.
 */
@Module({
  providers: [OutboxRepository, OutboxService, OutboxMetrics, WebhookSender, WebhookDispatcher, EventLogService, HousekeepingService],
  exports: [OutboxService, EventLogService],
})
export class EventsModule {}
