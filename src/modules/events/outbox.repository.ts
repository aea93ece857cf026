import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import { OutboundEvent } from './event-types';

export interface OutboxRow {
  id: string;
  partnerId: string;
  programCode: string;
  accountId: string | null;
  eventType: string;
  data: Record<string, unknown>;
  occurredAt: Date;
  attempts: number;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
  dead: boolean;
}

export interface DeliveryRow {
  attempt: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
}

export interface AttemptOutcome {
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const COLUMNS = `id, partner_id as "partnerId", program_code as "programCode", account_id as "accountId",
  event_type as "eventType", payload as data, occurred_at as "occurredAt", attempts,
  delivered_at as "deliveredAt", next_attempt_at as "nextAttemptAt", dead`;

/** SQL of `outbox_events` and `webhook_deliveries`; every write runs on the caller's manager. */
@Injectable()
export class OutboxRepository {
  /** An event, as a part of the caller's batch: a deliverable one is due at once; one without a webhook is stored as not deliverable (dead). */
  stage(batch: WriteBatch, id: string, event: OutboundEvent, deliverable: boolean): void {
    batch.write(
      `insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at, dead)
       values ($1, $2, $3, $4, $5, $6::jsonb, case when $7::boolean then now() end, not $7::boolean)`,
      [id, event.partnerId, event.programCode, event.accountId, event.eventType, JSON.stringify(event.data), deliverable],
    );
  }

  /**
   * Takes the next attempt of a due event: the attempt counter moves and the event is leased, in one
   * statement, so two instances can never send the same attempt. A crash leaves the lease to expire.
   */
  async claim(manager: EntityManager, eventId: string, leaseSeconds: number): Promise<OutboxRow | null> {
    const rows = (await manager.query(
      `with claimed as (
         update outbox_events
            set attempts = attempts + 1,
                dispatched_at = coalesce(dispatched_at, now()),
                next_attempt_at = now() + make_interval(secs => $2)
          where id = $1 and delivered_at is null and not dead and next_attempt_at <= now()
          returning *)
       select ${COLUMNS} from claimed`,
      [eventId, leaseSeconds],
    )) as OutboxRow[];
    return rows[0] ?? null;
  }

  async recordAttempt(manager: EntityManager, eventId: string, attempt: number, outcome: AttemptOutcome): Promise<void> {
    await manager.query(
      `insert into webhook_deliveries (event_id, attempt, url, status_code, error, duration_ms) values ($1, $2, $3, $4, $5, $6)`,
      [eventId, attempt, outcome.url, outcome.statusCode, outcome.error, outcome.durationMs],
    );
  }

  async markDelivered(manager: EntityManager, eventId: string): Promise<void> {
    await manager.query(`update outbox_events set delivered_at = now(), next_attempt_at = null where id = $1`, [eventId]);
  }

  async scheduleRetry(manager: EntityManager, eventId: string, delayMs: number): Promise<void> {
    await manager.query(
      `update outbox_events set next_attempt_at = now() + make_interval(secs => $2) where id = $1 and delivered_at is null`,
      [eventId, delayMs / 1000],
    );
  }

  /** Retries exhausted, or the partner no longer has a webhook: kept for care, never sent again. */
  async markDead(manager: EntityManager, eventId: string): Promise<void> {
    await manager.query(`update outbox_events set dead = true, next_attempt_at = null where id = $1 and delivered_at is null`, [eventId]);
  }

  /** Due events that nobody picked up within the grace period (their job was lost). */
  async findOverdue(manager: EntityManager, graceSeconds: number, limit: number): Promise<Array<{ id: string; attempts: number }>> {
    return (await manager.query(
      `select id, attempts from outbox_events
        where delivered_at is null and not dead and next_attempt_at < now() - make_interval(secs => $1)
        order by next_attempt_at limit $2`,
      [graceSeconds, limit],
    )) as Array<{ id: string; attempts: number }>;
  }

  /** Delivered or dead events older than `days`, with their delivery log, in one statement; returns how many events. */
  async purgeFinished(manager: EntityManager, days: number): Promise<number> {
    const rows = (await manager.query(
      `with old as (
         select id from outbox_events
          where (delivered_at is not null or dead) and occurred_at < now() - make_interval(days => $1)),
       log as (delete from webhook_deliveries where event_id in (select id from old))
       delete from outbox_events where id in (select id from old) returning id`,
      [days],
    )) as [unknown[], number] | unknown[];
    return Array.isArray(rows[0]) ? (rows[1] as number) : rows.length;
  }

  async forAccount(manager: EntityManager, accountId: string, limit: number): Promise<OutboxRow[]> {
    return (await manager.query(`select ${COLUMNS} from outbox_events where account_id = $1 order by occurred_at desc, id desc limit $2`, [accountId, limit])) as OutboxRow[];
  }

  async find(manager: EntityManager, eventId: string): Promise<OutboxRow | null> {
    const rows = (await manager.query(`select ${COLUMNS} from outbox_events where id = $1`, [eventId])) as OutboxRow[];
    return rows[0] ?? null;
  }

  async deliveries(manager: EntityManager, eventId: string): Promise<DeliveryRow[]> {
    return (await manager.query(
      `select attempt, url, status_code as "statusCode", error, duration_ms as "durationMs", attempted_at as "attemptedAt"
         from webhook_deliveries where event_id = $1 order by attempt, id`,
      [eventId],
    )) as DeliveryRow[];
  }
}
