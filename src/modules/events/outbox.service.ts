import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import { currentTraceparent } from '../../infrastructure/telemetry/trace-context';
import { OutboundEvent } from './event-types';
import { OutboxRepository } from './outbox.repository';

/**
 * The transactional outbox. `emit` writes the event on the caller's transaction: it exists exactly
 * when the state change commits, due at once; the WebhookDispatcher's poller delivers it after commit.
 */
@Injectable()
export class OutboxService {
  constructor(
    private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
  ) {}

  /**
   * Returns the eventId (the `webhook-id` the partner will see). `manager` is the state change's
   * transaction, handed down by whoever owns it (a call's, or a TransactionRunner's).
   */
  async emit(manager: EntityManager, event: OutboundEvent): Promise<string> {
    // A transaction's manager has its query runner; the data source's own runs each statement alone.
    if (manager.queryRunner === undefined) {
      throw new Error('OutboxService.emit must run inside the transaction of the state change');
    }
    const batch = new WriteBatch();
    const [id] = this.stage(batch, [event]);
    await batch.execute(manager);
    return id as string;
  }

  /**
   * Events of a state change written with a batch of the same transaction: the outbox rows join the
   * batch's statement (no statement of their own). Returns the eventIds.
   */
  stage(batch: WriteBatch, events: readonly OutboundEvent[]): string[] {
    const staged = events.map((event) => ({ id: randomUUID(), event, deliverable: Boolean(this.config.service.partnerById(event.partnerId)?.webhook) }));
    // The call's trace, so that the delivery attempts link back to it (null when not traced).
    const traceContext = currentTraceparent();
    for (const { id, event, deliverable } of staged) this.outbox.stage(batch, id, event, deliverable, traceContext);
    return staged.map((e) => e.id);
  }
}
