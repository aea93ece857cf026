import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboxRepository, OutboxRow } from './outbox.repository';

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
  deliveries: Array<{ attempt: number; url: string; statusCode: number | null; error: string | null; durationMs: number; attemptedDateTime: string }>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Read side of the outbox: an event's delivery state and its attempt log. */
@Injectable()
export class EventLogService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRepository,
  ) {}

  /** The latest events of an account with their delivery state, newest first (the care console's account page). */
  async listForAccount(accountId: string, limit = 20): Promise<Array<Omit<EventView, 'deliveries'>>> {
    if (!UUID.test(accountId)) return [];
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

  /** One event, as its partner (`partnerId`) or care (`programs`: the care client's programs only) may see it. */
  async describe(eventId: string, scope: { partnerId: string } | { programs: readonly string[] }): Promise<EventView | null> {
    if (!UUID.test(eventId)) return null;
    const manager = this.dataSource.manager;
    const event = await this.outbox.find(manager, eventId);
    if (!event) return null;
    if ('partnerId' in scope ? event.partnerId !== scope.partnerId : !scope.programs.includes(event.programCode)) return null;
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
        url: d.url,
        statusCode: d.statusCode,
        error: d.error,
        durationMs: d.durationMs,
        attemptedDateTime: iso(d.attemptedAt) as string,
      })),
    };
  }
}

function deliveryStatus(event: OutboxRow): DeliveryStatus {
  if (event.deliveredAt) return 'delivered';
  if (!event.dead) return 'pending';
  // Dead without a single attempt: the partner had no webhook when the event was written.
  return event.attempts === 0 ? 'notDeliverable' : 'failed';
}

function iso(value: Date | null): string | null {
  return value ? new Date(value).toISOString() : null;
}
