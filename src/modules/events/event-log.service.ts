import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { DomainError } from '../../common/errors/domain-error';
import { DeliveryOutcome, EVENT_TYPES } from './event-types';
import { EventListRow, ListCursor, OutboxRepository, OutboxRow, PartnerScope } from './outbox.repository';
import { isUuid } from '../../common/validation/identifiers';
import { attemptUrl } from './webhook-sender';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'notDeliverable';

export interface EventView {
  eventId: string;
  eventType: string;
  partnerId: string;
  programCode: string;
  accountIdentifier: string | null;
  occurredDateTime: string;
  deliveryStatus: DeliveryStatus;
  attempts: number;
  nextAttemptDateTime: string | null;
  deliveredDateTime: string | null;
  deliveries: Array<{ attempt: number; url: string; outcome: DeliveryOutcome; statusCode: number | null; durationMs: number; attemptedDateTime: string }>;
}

/** Read side of the outbox: an event's delivery state and its attempt log. */
@Injectable()
export class EventLogService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRepository,
    private readonly config: AppConfig,
  ) {}

  /** The latest events of an account with their delivery state, newest first (the care console's account page). */
  async listForAccount(accountId: string, limit = 20): Promise<Array<Omit<EventView, 'deliveries'>>> {
    if (!isUuid(accountId)) return [];
    const rows = await this.outbox.forAccount(this.dataSource.manager, accountId, limit);
    return rows.map((event) => ({
      eventId: event.id,
      eventType: event.eventType,
      partnerId: event.partnerId,
      programCode: event.programCode,
      accountIdentifier: event.accountId,
      occurredDateTime: iso(event.occurredAt) as string,
      deliveryStatus: deliveryStatus(event),
      attempts: event.attempts,
      nextAttemptDateTime: iso(event.nextAttemptAt),
      deliveredDateTime: iso(event.deliveredAt),
    }));
  }

  /**
   * A page of the partner's events, oldest first (CONTRACT section 11). `after`, `limit` and
   * `eventType` are the raw query values: a bad cursor or limit is 400/100/6, an unknown event type 400/100/5.
   */
  async list(partner: PartnerScope, query: { after?: unknown; limit?: unknown; eventType?: unknown }): Promise<EventPage> {
    // A repeated query parameter arrives as an array: as bad as any other malformed value.
    if ((query.after !== undefined && typeof query.after !== 'string') || (query.limit !== undefined && typeof query.limit !== 'string')) {
      throw new DomainError('BAD_CURSOR_OR_LIMIT');
    }
    const after = query.after === undefined ? null : decodeCursor(query.after);
    const limit = query.limit === undefined ? DEFAULT_LIMIT : parseLimit(query.limit);
    if (query.eventType !== undefined && !(EVENT_TYPES as readonly unknown[]).includes(query.eventType)) {
      throw new DomainError('INVALID_FIELD', { field: 'eventType', property: 'eventType' });
    }
    // One row more than the page tells whether there is a next page without a count.
    const rows = await this.outbox.listPage(this.dataSource.manager, partner.partnerId, after, limit + 1, (query.eventType as string | undefined) ?? null);
    const read = rows.slice(0, limit);
    const last = read[read.length - 1];
    // Tenancy (CONTRACT section 3): the programs the partner's configuration lists now; an event of
    // a program taken out of it stays unlisted. Left out after the read, not in its statement (which
    // slowed every page of a partner's list under concurrent writes, test/webhook-events-concurrent):
    // the cursor is the last event read, so a page may hold fewer than `limit` events.
    const page = read.filter((row) => partner.programs.includes(row.programCode)).map(listItem);
    return { events: page, nextCursor: rows.length > limit && last ? encodeCursor({ txId: last.txId, seq: last.seq }) : null };
  }

  /** Makes the partner's event due for one more attempt now; null for an unknown event, another partner's or another program's. */
  async redeliver(partner: PartnerScope, eventId: string): Promise<EventListItem | null> {
    if (!isUuid(eventId)) return null;
    const deliverable = Boolean(this.config.service.partnerById(partner.partnerId)?.webhook);
    const row = await this.outbox.redeliver(this.dataSource.manager, eventId, partner, deliverable);
    return row ? listItem(row) : null;
  }

  /**
   * One event, as its partner (its own, of the programs it lists) or care (`programs`: the care
   * client's programs only) may see it; null when it does not exist or is not theirs to see.
   */
  async describe(eventId: string, scope: PartnerScope | { programs: readonly string[] }): Promise<EventView | null> {
    if (!isUuid(eventId)) return null;
    const manager = this.dataSource.manager;
    const event = await this.outbox.find(manager, eventId);
    if (!event) return null;
    if (('partnerId' in scope && event.partnerId !== scope.partnerId) || !scope.programs.includes(event.programCode)) return null;
    const deliveries = await this.outbox.deliveries(manager, eventId);
    const status = deliveryStatus(event);
    return {
      eventId: event.id,
      eventType: event.eventType,
      partnerId: event.partnerId,
      programCode: event.programCode,
      accountIdentifier: event.accountId,
      occurredDateTime: iso(event.occurredAt) as string,
      deliveryStatus: status,
      attempts: event.attempts,
      nextAttemptDateTime: iso(event.nextAttemptAt),
      deliveredDateTime: iso(event.deliveredAt),
      deliveries: deliveries.map((d) => ({
        attempt: d.attempt,
        // Attempts recorded before addresses were stored without credentials or query string show the same.
        url: attemptUrl(d.url),
        outcome: d.outcome,
        statusCode: d.statusCode,
        durationMs: d.durationMs,
        attemptedDateTime: iso(d.attemptedAt) as string,
      })),
    };
  }
}

export interface EventListItem {
  eventId: string;
  eventType: string;
  occurredDateTime: string;
  accountIdentifier: string | null;
  deliveryStatus: DeliveryStatus;
  attempts: number;
  /** Resumes the list right after this event. */
  cursor: string;
}

export interface EventPage {
  events: EventListItem[];
  nextCursor: string | null;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
/** `{txId}.{seq}` in decimal as the service writes it: no leading zero (PostgreSQL would read an xid8 such as `010` as octal, or fail on `08`). */
const CURSOR_TEXT = /^(0|[1-9]\d{0,19})\.(0|[1-9]\d{0,18})$/;

function listItem(row: EventListRow): EventListItem {
  return {
    eventId: row.id,
    eventType: row.eventType,
    occurredDateTime: iso(row.occurredAt) as string,
    accountIdentifier: row.accountId,
    deliveryStatus: deliveryStatus(row),
    attempts: row.attempts,
    cursor: encodeCursor({ txId: row.txId, seq: row.seq }),
  };
}

/** Opaque to partners: base64url of `{txId}.{seq}`. */
function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(`${cursor.txId}.${cursor.seq}`).toString('base64url');
}

function decodeCursor(raw: string): ListCursor {
  const match = CURSOR_TEXT.exec(Buffer.from(raw, 'base64url').toString('latin1'));
  // Only the exact encoding is accepted: base64url decoding alone would ignore stray characters.
  if (!match || encodeCursor({ txId: match[1], seq: match[2] }) !== raw || BigInt(match[1]) >= 2n ** 64n || BigInt(match[2]) >= 2n ** 63n) {
    throw new DomainError('BAD_CURSOR_OR_LIMIT');
  }
  return { txId: match[1], seq: match[2] };
}

function parseLimit(raw: string): number {
  // The integer's own form only, as cursors are only the list's own encoding: no leading zero, sign or exponent.
  const limit = /^[1-9]\d{0,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new DomainError('BAD_CURSOR_OR_LIMIT');
  return limit;
}

function deliveryStatus(event: Pick<OutboxRow, 'deliveredAt' | 'dead' | 'attempts'>): DeliveryStatus {
  if (event.deliveredAt) return 'delivered';
  if (!event.dead) return 'pending';
  // Dead without a single attempt: the partner had no webhook when the event was written.
  return event.attempts === 0 ? 'notDeliverable' : 'failed';
}

function iso(value: Date | null): string | null {
  return value ? new Date(value).toISOString() : null;
}
