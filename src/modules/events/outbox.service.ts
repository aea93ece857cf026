import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import { deterministicJobId } from '../../infrastructure/queue/job-definition';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { OutboundEvent } from './event-types';
import { OutboxRepository } from './outbox.repository';
import { WEBHOOK_DELIVERY_JOB } from './webhook-jobs';

/** The job that performs attempt `attemptsSoFar + 1` of an event; the same id from every producer. */
export function deliveryJobId(eventId: string, attemptsSoFar: number): string {
  return deterministicJobId(WEBHOOK_DELIVERY_JOB.name, eventId, attemptsSoFar);
}

/**
 * The transactional outbox. `emit` writes the event and its delivery job on the caller's
 * transaction: both exist exactly when the state change commits, and delivery starts after commit.
 */
@Injectable()
export class OutboxService {
  constructor(
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
    private readonly outbox: OutboxRepository,
  ) {}

  /** Returns the eventId (the `webhook-id` the partner will see). */
  async emit(manager: EntityManager, event: OutboundEvent): Promise<string> {
    if (!manager.queryRunner?.isTransactionActive) {
      throw new Error('OutboxService.emit must run inside the transaction of the state change');
    }
    const batch = new WriteBatch();
    const [id] = this.stage(batch, [event]);
    await batch.execute(manager);
    return id as string;
  }

  /**
   * Events of a state change written with a batch of the same transaction: the outbox rows join the
   * batch's statement, the delivery jobs follow in one more. Returns the eventIds.
   */
  stage(batch: WriteBatch, events: readonly OutboundEvent[]): string[] {
    const staged = events.map((event) => ({ id: randomUUID(), event, deliverable: Boolean(this.config.service.partnerById(event.partnerId)?.webhook) }));
    for (const { id, event, deliverable } of staged) this.outbox.stage(batch, id, event, deliverable);
    const jobs = staged.filter((e) => e.deliverable).map((e) => ({ id: deliveryJobId(e.id, 0), data: { eventId: e.id } }));
    if (jobs.length > 0) batch.afterWrite((manager) => this.jobs.sendMany(WEBHOOK_DELIVERY_JOB, jobs, manager));
    return staged.map((e) => e.id);
  }
}
