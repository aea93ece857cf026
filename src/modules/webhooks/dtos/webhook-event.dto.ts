import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES } from '../../events/event-types';

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'notDeliverable'];

/** One event of the partner's event list (CONTRACT section 11). */
export class WebhookEventDto {
  @ApiProperty({ format: 'uuid', description: 'The webhook-id of every delivery of this event' })
  eventId: string;

  @ApiProperty({ enum: EVENT_TYPES })
  eventType: string;

  @ApiProperty({ format: 'date-time', description: 'When the change was written (UTC)' })
  occurredDateTime: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The account the event is about; null for partner-level events (test events)' })
  accountIdentifier: string | null;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description: 'pending (due or retrying), delivered (a 2xx answered), failed (retries exhausted), notDeliverable (no webhook configured when it was written)',
  })
  deliveryStatus: string;

  @ApiProperty({ type: 'integer', description: 'Delivery attempts made so far' })
  attempts: number;

  @ApiProperty({ description: 'Opaque cursor right after this event: `after` resumes the list from here' })
  cursor: string;
}

/** `GET /v1/webhooks/events`: beside the envelope's requestId and responseDetails. */
export class WebhookEventListDto {
  @ApiProperty({ type: [WebhookEventDto], description: 'Oldest first' })
  events: WebhookEventDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page; null at the end of the list' })
  nextCursor: string | null;
}

/** `POST /v1/webhooks/events/{eventId}/redeliver`. */
export class RedeliveredWebhookEventDto {
  @ApiProperty({ type: WebhookEventDto, description: 'The event as it stands after the redelivery request (pending, due now)' })
  event: WebhookEventDto;
}

