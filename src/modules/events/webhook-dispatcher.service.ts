import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { OutboxRepository, OutboxRow } from './outbox.repository';
import { deliveryJobId } from './outbox.service';
import { OUTBOX_SWEEP_JOB, WEBHOOK_DELIVERY_JOB } from './webhook-jobs';
import { WebhookSender } from './webhook-sender';

/** Longer than one attempt can take (10 s HTTP timeout), so a live attempt is never taken over. */
const LEASE_SECONDS = 60;
/** A due event untouched this long has lost its job; the sweeper enqueues it again. */
const SWEEP_GRACE_SECONDS = 60;
const SWEEP_BATCH = 500;

/**
 * Delivers outbox events to partners' webhooks, at least once: claim the attempt (short
 * transaction), POST outside any transaction, then record the attempt and either finish the event
 * or schedule the next attempt after WEBHOOK_RETRY_DELAYS_MS (one transaction).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookDispatcher.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
    private readonly outbox: OutboxRepository,
    private readonly sender: WebhookSender,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.jobs.work(WEBHOOK_DELIVERY_JOB, ({ eventId }) => this.deliver(eventId), { batchSize: 10 });
    await this.jobs.work(OUTBOX_SWEEP_JOB, () => this.sweep().then(() => undefined), { batchSize: 1, pollingIntervalSeconds: 5 });
    await this.jobs.schedule(OUTBOX_SWEEP_JOB, '* * * * *', {});
  }

  /** One attempt of one event; a no-op when the event is delivered, dead, not due, or taken by another worker. */
  async deliver(eventId: string): Promise<void> {
    const event = await this.outbox.claim(this.dataSource.manager, eventId, LEASE_SECONDS);
    if (!event) return;
    const webhook = this.config.service.partnerById(event.partnerId)?.webhook;
    if (!webhook) {
      await this.dataSource.transaction((manager) => this.outbox.markDead(manager, eventId));
      return;
    }
    const outcome = await this.sender.post(webhook, event.id, webhookBody(event));
    const delays = this.config.env.webhookRetryDelaysMs;
    await this.dataSource.transaction(async (manager) => {
      await this.outbox.recordAttempt(manager, eventId, event.attempts, outcome);
      if (outcome.ok) {
        await this.outbox.markDelivered(manager, eventId);
      } else if (event.attempts <= delays.length) {
        const delayMs = delays[event.attempts - 1];
        await this.outbox.scheduleRetry(manager, eventId, delayMs);
        await this.jobs.send(WEBHOOK_DELIVERY_JOB, { eventId }, { id: deliveryJobId(eventId, event.attempts), startAfterMs: delayMs }, manager);
      } else {
        await this.outbox.markDead(manager, eventId);
      }
    });
    if (!outcome.ok) {
      this.logger.warn({ eventId, attempt: event.attempts, statusCode: outcome.statusCode, error: outcome.error }, 'webhook attempt failed');
    }
  }

  /** Re-enqueues overdue events; the deterministic job id makes a duplicate of a live job a no-op. */
  async sweep(): Promise<number> {
    const overdue = await this.outbox.findOverdue(this.dataSource.manager, SWEEP_GRACE_SECONDS, SWEEP_BATCH);
    for (const row of overdue) {
      await this.jobs.send(WEBHOOK_DELIVERY_JOB, { eventId: row.id }, { id: deliveryJobId(row.id, row.attempts) });
    }
    if (overdue.length > 0) this.logger.warn({ count: overdue.length }, 'outbox sweep re-enqueued overdue events');
    return overdue.length;
  }
}

/** The body partners receive; identical on every attempt so that retries verify the same way. */
export function webhookBody(event: OutboxRow): string {
  return JSON.stringify({
    eventId: event.id,
    eventType: event.eventType,
    occurredDateTime: new Date(event.occurredAt).toISOString(),
    programCode: event.programCode,
    accountIdentifier: event.accountId,
    data: event.data,
  });
}
