import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WriteBatch } from '../../infrastructure/database/write-batch';
import { prepared } from '../../infrastructure/database/prepared-statements';
import { queryRows } from '../../infrastructure/database/pooled-read';
import { DeliveryOutcome, OutboundEvent } from './event-types';
import { affectedRows } from '../../infrastructure/database/affected-rows';

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
  /** The `traceparent` of the call that wrote the event, when it was traced. */
  traceContext: string | null;
  /** Redeliveries asked for so far: an attempt settles its event only if none was asked for since its claim. */
  redeliveries: number;
  /** When a delivered event was delivered, while the redelivery asked for since is due (its one attempt). */
  previouslyDeliveredAt: Date | null;
}

export interface DeliveryRow {
  attempt: number;
  url: string;
  statusCode: number | null;
  outcome: DeliveryOutcome;
  durationMs: number;
  attemptedAt: Date;
}

export interface AttemptOutcome {
  url: string;
  statusCode: number | null;
  outcome: DeliveryOutcome;
  durationMs: number;
}

/** Slots of one partner in this claim: `slots` more at most, `busy` of its attempts already in flight here. */
export interface PartnerQuota {
  partnerId: string;
  slots: number;
  busy: number;
}

export type AttemptNext = { kind: 'delivered' } | { kind: 'retry'; delayMs: number } | { kind: 'dead' };

export interface FinishedAttempt {
  eventId: string;
  attempt: number;
  /** The event's redeliveries when this attempt was claimed. */
  redeliveries: number;
  outcome: AttemptOutcome;
  next: AttemptNext;
  /** When the attempt ended (its answer, or the timeout): its log's attemptedDateTime, whenever the flush records it. */
  endedAt: Date;
}

/** A partner as its events are reached: its own, of the programs its configuration lists now (CONTRACT section 3, tenancy). */
export interface PartnerScope {
  partnerId: string;
  programs: readonly string[];
}

/** Position in a partner's event list: the inserting transaction's id and the row's sequence number. */
export interface ListCursor {
  txId: string;
  seq: string;
}

export interface EventListRow {
  id: string;
  programCode: string;
  eventType: string;
  occurredAt: Date;
  accountId: string | null;
  attempts: number;
  deliveredAt: Date | null;
  dead: boolean;
  txId: string;
  seq: string;
}

const LIST_COLUMNS = `id, program_code as "programCode", event_type as "eventType", occurred_at as "occurredAt", account_id as "accountId", attempts,
  delivered_at as "deliveredAt", dead, tx_id::text as "txId", seq::text as "seq"`;

const COLUMNS = `id, partner_id as "partnerId", program_code as "programCode", account_id as "accountId",
  event_type as "eventType", payload as data, occurred_at as "occurredAt", attempts,
  delivered_at as "deliveredAt", next_attempt_at as "nextAttemptAt", dead, trace_context as "traceContext", redeliveries,
  previously_delivered_at as "previouslyDeliveredAt"`;

/**
 * The poller's claim, prepared (every instance runs it several times a second, busy or idle), fair
 * between partners: per partner, at most its free slots of its due events (in due order, through the
 * partner's pending index, SKIP LOCKED); of those, the whole claim takes at most `$4`, every partner's
 * next turn before anyone's following one (turn = its attempts already in flight here + rank), so a
 * partner whose receiver hangs holds only its own slots and never queues ahead of another partner.
 */
const CLAIM_SQL = prepared(`with quota as (
         select * from unnest($1::text[], $2::int[], $3::int[]) as q(partner_id, slots, busy)),
       due as (
         select e.id, e.next_attempt_at, q.busy + row_number() over (partition by q.partner_id order by e.next_attempt_at) as turn
           from quota q
           cross join lateral (
             select o.id, o.next_attempt_at from outbox_events o
              where o.partner_id = q.partner_id and o.delivered_at is null and not o.dead and o.next_attempt_at <= now()
              order by o.next_attempt_at
              limit q.slots
              for update skip locked) e),
       picked as (select id from due order by turn, next_attempt_at limit $4),
       claimed as (
         update outbox_events o
            set attempts = o.attempts + 1,
                dispatched_at = coalesce(o.dispatched_at, now()),
                next_attempt_at = now() + make_interval(secs => $5)
           from picked where o.id = picked.id
          returning o.*)
       select ${COLUMNS} from claimed`);

/** SQL of `outbox_events` and `webhook_deliveries`; every write runs on the caller's manager. */
@Injectable()
export class OutboxRepository {
  /** An event, as a part of the caller's batch: a deliverable one is due at once; one without a webhook is stored as not deliverable (dead). */
  stage(batch: WriteBatch, id: string, event: OutboundEvent, deliverable: boolean, traceContext: string | null): void {
    batch.write(
      `insert into outbox_events (id, partner_id, program_code, account_id, event_type, payload, next_attempt_at, dead, trace_context)
       values ($1, $2, $3, $4, $5, $6::jsonb, case when $7::boolean then now() end, not $7::boolean, $8)`,
      [id, event.partnerId, event.programCode, event.accountId, event.eventType, JSON.stringify(event.data), deliverable, traceContext],
    );
  }

  /**
   * Takes the next attempt of up to `limit` due events (at most each partner's `slots`) in one statement: each claimed row's attempt
   * counter moves and it is leased (next_attempt_at pushed past the lease), so no other instance can
   * send the same attempt; SKIP LOCKED lets instances claim side by side without waiting on each
   * other. A crashed instance's rows come back when their lease runs out.
   */
  async claimDue(manager: EntityManager, quotas: readonly PartnerQuota[], limit: number, leaseSeconds: number): Promise<OutboxRow[]> {
    const open = quotas.filter((q) => q.slots > 0);
    if (open.length === 0 || limit <= 0) return [];
    return queryRows<OutboxRow>(manager, CLAIM_SQL, [open.map((q) => q.partnerId), open.map((q) => q.slots), open.map((q) => q.busy), limit, leaseSeconds]);
  }

  /** Events still to deliver and the age of the oldest, in one read of the pending (partial) index's rows. */
  async backlog(manager: EntityManager, partnerIds: readonly string[]): Promise<{ pending: number; oldestAgeSeconds: number }> {
    const [row] = (await manager.query(
      `select count(*)::int as pending, coalesce(extract(epoch from now() - min(occurred_at)), 0)::float8 as "oldestAgeSeconds"
         from outbox_events where delivered_at is null and not dead and partner_id = any($1)`,
      [partnerIds],
    )) as [{ pending: number; oldestAgeSeconds: number }];
    return row;
  }

  /**
   * Records finished attempts in the delivery log and settles their events, in one statement for
   * the whole set (ids unique). An attempt settles nothing once a redelivery was asked for after its
   * claim: the redelivery stays one more attempt, due now, whether this one was acknowledged or
   * failed. Otherwise a retry or a give-up applies only while its attempt is the latest (a lease run
   * out may have claimed a newer one) and the event is not delivered; an acknowledgement always
   * counts. An attempt whose event is gone (lost with an asynchronous standby's failover) is
   * dropped: its log row would fail the whole set, and the poller would retry that set forever.
   */
  async finishAttempts(manager: EntityManager, attempts: readonly FinishedAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    const column = <T>(pick: (a: FinishedAttempt) => T): T[] => attempts.map(pick);
    await manager.query(
      `with o as (
         select * from unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::float8[], $9::int[], $10::timestamptz[])
           as o(event_id, attempt, url, status_code, outcome, duration_ms, next_kind, delay_secs, redeliveries, ended_at)),
       log as (
         insert into webhook_deliveries (event_id, attempt, url, status_code, outcome, duration_ms, attempted_at)
         select o.event_id, o.attempt, o.url, o.status_code, o.outcome, o.duration_ms, o.ended_at from o join outbox_events e on e.id = o.event_id)
       update outbox_events e
          set delivered_at = case when o.next_kind = 'delivered' then now() else coalesce(e.previously_delivered_at, e.delivered_at) end,
              dead = case o.next_kind when 'delivered' then false when 'dead' then e.previously_delivered_at is null else e.dead end,
              next_attempt_at = case when o.next_kind = 'retry' then now() + make_interval(secs => o.delay_secs) end,
              previously_delivered_at = null
         from o
        where e.id = o.event_id and e.redeliveries = o.redeliveries
          and (o.next_kind = 'delivered' or (e.attempts = o.attempt and e.delivered_at is null))`,
      [
        column((a) => a.eventId),
        column((a) => a.attempt),
        column((a) => a.outcome.url),
        column((a) => a.outcome.statusCode),
        column((a) => a.outcome.outcome),
        column((a) => a.outcome.durationMs),
        column((a) => a.next.kind),
        column((a) => (a.next.kind === 'retry' ? a.next.delayMs / 1000 : null)),
        column((a) => a.redeliveries),
        column((a) => a.endedAt),
      ],
    );
  }

  /**
   * The partner no longer has a webhook: kept for care, never sent again. Its claim counted an
   * attempt that is not made, taken back here: an event never attempted reads notDeliverable, one
   * attempted before the webhook was removed keeps the attempts it had.
   */
  async markDead(manager: EntityManager, eventId: string): Promise<void> {
    await manager.query(
      `update outbox_events
          set dead = previously_delivered_at is null, delivered_at = previously_delivered_at, previously_delivered_at = null,
              next_attempt_at = null, attempts = greatest(attempts - 1, 0)
        where id = $1 and delivered_at is null`,
      [eventId],
    );
  }

  /**
   * One more attempt of a partner's event, due now (CONTRACT section 11): the event is pending again
   * whatever its state, and the poller takes it on its next pass; an attempt in flight meanwhile
   * no longer settles it (`finishAttempts`). Of a delivered event, the one attempt asked for: when it
   * is refused, no retry follows and the event is delivered as it was (`previously_delivered_at`). null for an unknown event or another
   * partner's. Left untouched when `deliverable` is false (no webhook to send to).
   */
  async redeliver(manager: EntityManager, eventId: string, partner: PartnerScope, deliverable: boolean): Promise<EventListRow | null> {
    const rows = (await manager.query(
      deliverable
        ? `update outbox_events set next_attempt_at = now(), previously_delivered_at = coalesce(delivered_at, previously_delivered_at),
                  delivered_at = null, dead = false, redeliveries = redeliveries + 1
            where id = $1 and partner_id = $2 and program_code = any($3) returning ${LIST_COLUMNS}`
        : `select ${LIST_COLUMNS} from outbox_events where id = $1 and partner_id = $2 and program_code = any($3)`,
      [eventId, partner.partnerId, partner.programs],
    )) as [EventListRow[], number] | EventListRow[];
    const list = (Array.isArray(rows[0]) ? rows[0] : rows) as EventListRow[];
    return list[0] ?? null;
  }

  /**
   * A page of a partner's events in the order their transactions took their ids, after `after`.
   *
   * Why (tx_id, seq) and the xmin horizon: occurred_at can tie, ids are random, and transactions
   * commit in another order than they started, so neither (occurred_at, id) nor a sequence alone is
   * stable: a row that commits after a page was read could sort before that page's cursor and be
   * skipped. Every row carries its transaction's id (tx_id, assigned at insert) and a sequence
   * number; only rows of transactions older than the oldest one still running
   * (pg_snapshot_xmin) are listed, so every row listed later sorts after every row listed now: a
   * cursor never skips nor repeats. The price: a row waits for older open transactions to end
   * before it is listed (milliseconds here, where every transaction is short and bounded by the
   * statement timeout).
   *
   * The ORDER BY names the table's columns: a bare `seq` is the output column `seq::text`, and in
   * text order a transaction's `…9` sorts after its `…10`, so a page's cursor skipped or repeated one.
   */
  async listPage(manager: EntityManager, partnerId: string, after: ListCursor | null, limit: number, eventType: string | null): Promise<EventListRow[]> {
    return (await manager.query(
      `select ${LIST_COLUMNS} from outbox_events
        where partner_id = $1
          and ($2::text is null or event_type = $2)
          and (tx_id, seq) > ($3::xid8, $4::bigint)
          and tx_id < pg_snapshot_xmin(pg_current_snapshot())
        order by outbox_events.tx_id, outbox_events.seq
        limit $5`,
      [partnerId, eventType, after?.txId ?? '0', after?.seq ?? '0', limit],
    )) as EventListRow[];
  }

  /** Delivered or dead events older than `days`, with their delivery log, in one statement; returns how many events. */
  async purgeFinished(manager: EntityManager, days: number): Promise<number> {
    const result: unknown = await manager.query(
      `with old as (
         select id from outbox_events
          where (delivered_at is not null or dead) and occurred_at < now() - make_interval(days => $1)),
       log as (delete from webhook_deliveries where event_id in (select id from old))
       delete from outbox_events where id in (select id from old) returning id`,
      [days],
    );
    return affectedRows(result);
  }

  async forAccount(manager: EntityManager, accountId: string, limit: number): Promise<OutboxRow[]> {
    return (await manager.query(`select ${COLUMNS} from outbox_events where account_id = $1 order by occurred_at desc, id desc limit $2`, [
      accountId,
      limit,
    ])) as OutboxRow[];
  }

  async find(manager: EntityManager, eventId: string): Promise<OutboxRow | null> {
    const rows = (await manager.query(`select ${COLUMNS} from outbox_events where id = $1`, [eventId])) as OutboxRow[];
    return rows[0] ?? null;
  }

  async deliveries(manager: EntityManager, eventId: string): Promise<DeliveryRow[]> {
    const rows = (await manager.query(
      `select attempt, url, status_code as "statusCode", outcome, duration_ms as "durationMs", attempted_at as "attemptedAt"
         from webhook_deliveries where event_id = $1 order by attempt, id`,
      [eventId],
    )) as Array<Omit<DeliveryRow, 'outcome'> & { outcome: DeliveryOutcome | null }>;
    // null: written by an instance older than the outcome column, during a rolling deploy.
    return rows.map((row) => ({ ...row, outcome: row.outcome ?? (row.statusCode === null ? 'connectionRefused' : httpOutcome(row.statusCode)) }));
  }
}

function httpOutcome(statusCode: number): DeliveryOutcome {
  return statusCode >= 200 && statusCode < 300 ? 'delivered' : 'httpStatus';
}
