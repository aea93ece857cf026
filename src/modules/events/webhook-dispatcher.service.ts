import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SpanStatusCode } from '@opentelemetry/api';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { DELIVERY_DATA_SOURCE } from '../../infrastructure/database/database.module';
import { Metrics } from '../../infrastructure/metrics/metrics';
import { BackgroundWork } from '../../infrastructure/queue/background-work';
import { JobQueue } from '../../infrastructure/queue/job-queue';
import { inLinkedSpan } from '../../infrastructure/telemetry/trace-context';
import { AttemptNext, AttemptOutcome, FinishedAttempt, OutboxRepository, OutboxRow, PartnerQuota } from './outbox.repository';
import { WebhookSender } from './webhook-sender';

/** The per-minute cron that re-enqueued lost delivery jobs before the poller; databases made before it still hold it. */
const RETIRED_SWEEP_SCHEDULE = 'outbox-sweep';
/** Idle poll: the lag of a new event is at most this plus one claim (no LISTEN connection to keep alive). */
const POLL_MS = 250;
/**
 * Attempts in flight per instance (the HTTP posts are concurrent); a claim never takes more than the
 * room left. Four times the default per-partner cap: one partner alone delivers at its full cap, and a
 * partner whose receiver hangs holds at most a quarter.
 */
const MAX_IN_FLIGHT = 256;
/** A failed claim (database restarting) is retried after this. */
const ERROR_BACKOFF_MS = 1_000;
/** Finished attempts wait at most this long to be recorded together (one statement per flush). */
const FLUSH_MS = 20;

/**
 * Delivers outbox events to partners' webhooks, at least once, from every instance: a poller
 * claims due rows in batches (one statement, SKIP LOCKED, attempt counted and leased, at most
 * WEBHOOK_PARTNER_MAX_IN_FLIGHT of one partner in flight here, every partner's turn before anyone's
 * next one: a hanging receiver holds only its partner's slots), posts them
 * concurrently outside any transaction, and records finished attempts with their settlement
 * (delivered, due again after WEBHOOK_RETRY_DELAYS_MS, or failed for good) in one statement per
 * flush, so delivery takes one pooled connection per batch rather than per event. An instance
 * killed mid-batch leaves leases that expire after WEBHOOK_LEASE_SECONDS; any instance then
 * claims those events again.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly inFlight = new Set<Promise<void>>();
  /** Attempts in flight here by partner: the claim gives each partner only its free slots. */
  private readonly busy = new Map<string, number>();
  private finished: FinishedAttempt[] = [];
  private stopped = false;
  private loop?: Promise<void>;
  private wakeUp?: () => void;
  private flushSoon?: NodeJS.Timeout;

  constructor(
    @InjectDataSource(DELIVERY_DATA_SOURCE) private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly outbox: OutboxRepository,
    private readonly sender: WebhookSender,
    private readonly jobs: JobQueue,
    private readonly background: BackgroundWork,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // JOBS_ENABLED=false: this instance writes events but delivers none, like its job workers.
    if (!this.config.env.jobsEnabled) return;
    await this.jobs.unschedule(RETIRED_SWEEP_SCHEDULE);
    // Polls once the instance serves: one that cannot start claims nothing.
    this.background.whenServing(() => {
      if (!this.stopped) this.loop = this.run();
    });
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.flushSoon);
    this.wake();
    await this.loop;
    const drained = Promise.allSettled([...this.inFlight]);
    // One attempt's timeout: what is in flight has ended by then.
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, this.config.env.webhookTimeoutMs).unref())]);
    // What is not recorded now is sent again after its lease: at least once either way.
    await this.flush().catch(() => undefined);
  }

  /** Polls now instead of at the end of the current wait (an attempt finished and made room). */
  wake(): void {
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let wait = POLL_MS;
      try {
        await this.flush();
        const room = MAX_IN_FLIGHT - this.inFlight.size;
        if (room > 0) {
          const claimed = await this.outbox.claimDue(this.dataSource.manager, this.quotas(), room, this.config.env.webhookLeaseSeconds);
          for (const event of claimed) this.track(event.partnerId, this.attempt(event));
          // A full batch: more may be due; claim again as soon as there is room.
          if (claimed.length === room) wait = 0;
        }
      } catch (error) {
        if (this.stopped) break;
        wait = ERROR_BACKOFF_MS;
        this.logger.warn({ errorName: (error as Error).name, message: (error as Error).message }, 'outbox poll failed');
      }
      if (wait > 0 || this.inFlight.size >= MAX_IN_FLIGHT) await this.sleep(wait || POLL_MS);
    }
  }

  /** Records the finished attempts in one statement; an event finished twice waits for the next flush. */
  private async flush(): Promise<void> {
    if (this.finished.length === 0) return;
    const ids = new Set<string>();
    const now: FinishedAttempt[] = [];
    const later: FinishedAttempt[] = [];
    for (const done of this.finished) {
      (ids.has(done.eventId) ? later : now).push(done);
      ids.add(done.eventId);
    }
    this.finished = later;
    try {
      await this.outbox.finishAttempts(this.dataSource.manager, now);
    } catch (error) {
      this.finished.push(...now);
      throw error;
    }
  }

  /** Every configured partner's free slots (one whose webhook was removed gets them too: its events are then marked dead). */
  private quotas(): PartnerQuota[] {
    const max = this.config.env.webhookPartnerMaxInFlight;
    return this.config.service.partners.map(({ partnerId }) => {
      const busy = this.busy.get(partnerId) ?? 0;
      return { partnerId, slots: Math.max(0, max - busy), busy };
    });
  }

  private track(partnerId: string, attempt: Promise<void>): void {
    this.busy.set(partnerId, (this.busy.get(partnerId) ?? 0) + 1);
    const tracked = attempt.finally(() => {
      this.inFlight.delete(tracked);
      const left = (this.busy.get(partnerId) ?? 1) - 1;
      if (left > 0) this.busy.set(partnerId, left);
      else this.busy.delete(partnerId);
      // Soon, not at once: attempts finishing together are recorded together.
      this.flushSoon ??= setTimeout(() => {
        this.flushSoon = undefined;
        this.wake();
      }, FLUSH_MS);
    });
    this.inFlight.add(tracked);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }

  /** One claimed attempt, recorded by the next flush; if that never happens the lease expires and the event is sent again. */
  private async attempt(event: OutboxRow): Promise<void> {
    try {
      const partner = this.config.service.partnerById(event.partnerId);
      const webhook = partner?.webhook;
      // Not deliverable: the partner has no webhook now, or no longer lists the event's program (a
      // partner reaches only the programs its configuration lists, CONTRACT section 3; its event list,
      // detail and redelivery already answer such an event 404).
      if (!webhook || !partner.programs.includes(event.programCode)) {
        await this.outbox.markDead(this.dataSource.manager, event.id);
        return;
      }
      // Its own trace, linked to the call that wrote the event (CONTRACT section 16); the request
      // itself carries no trace header to the partner.
      const attributes = { 'webhook.event_id': event.id, 'webhook.event_type': event.eventType, 'webhook.attempt': event.attempts };
      const { outcome, next } = await inLinkedSpan('webhook delivery', event.traceContext, attributes, async (span) => {
        const posted = await this.sender.post(webhook, event.id, webhookBody(event));
        const settled = this.next(event.attempts, posted.ok, event.previouslyDeliveredAt !== null);
        const counted = settled.kind === 'delivered' ? 'delivered' : settled.kind === 'retry' ? 'failed' : 'abandoned';
        span.setAttribute('webhook.outcome', counted);
        span.setAttribute('webhook.delivery_outcome', posted.outcome);
        if (posted.statusCode !== null) span.setAttribute('http.response.status_code', posted.statusCode);
        if (!posted.ok) span.setStatus({ code: SpanStatusCode.ERROR });
        this.metrics.countWebhookAttempt(counted);
        // Inside the span: the line carries its trace_id and span_id when tracing is on.
        if (!posted.ok) {
          const failure = { eventId: event.id, attempt: event.attempts, outcome: posted.outcome, statusCode: posted.statusCode, errorCode: posted.errorCode };
          this.logger.warn(failure, 'webhook attempt failed');
        }
        const outcome: AttemptOutcome = { url: posted.url, statusCode: posted.statusCode, outcome: posted.outcome, durationMs: posted.durationMs };
        return { outcome, next: settled };
      });
      this.finished.push({ eventId: event.id, attempt: event.attempts, redeliveries: event.redeliveries, outcome, next, endedAt: new Date() });
    } catch (error) {
      this.logger.warn({ eventId: event.id, errorName: (error as Error).name, message: (error as Error).message }, 'webhook attempt not recorded');
    }
  }

  /**
   * Attempt n failed: wait the n-th delay of WEBHOOK_RETRY_DELAYS_MS; past the last one, give up. The
   * redelivery of a delivered event (`once`) is one attempt: refused, nothing more follows.
   */
  private next(attempt: number, ok: boolean, once: boolean): AttemptNext {
    if (ok) return { kind: 'delivered' };
    if (once) return { kind: 'dead' };
    const delays = this.config.env.webhookRetryDelaysMs;
    return attempt <= delays.length ? { kind: 'retry', delayMs: delays[attempt - 1] } : { kind: 'dead' };
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
