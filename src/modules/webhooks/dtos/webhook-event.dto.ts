import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';
import { EVENT_TYPES } from '../../events/event-types';

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'notDeliverable'];

/** One event of the partner's event list (CONTRACT section 11). */
@ApiSchema({ name: 'WebhookEventListItem' })
export class WebhookEventListItemDto {
  @ApiProperty({ format: 'uuid', description: 'The webhook-id of every delivery of this event', example: '5d0c7a5e-1b7e-4c53-9b0f-2a6f1c3d4e5f' })
  eventId: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'accountUpdated' })
  eventType: string;

  @ApiProperty({
    format: 'date-time',
    description: 'When the change began: the start of the transaction that wrote it (UTC)',
    example: '2026-11-21T10:00:01.500Z',
  })
  occurredDateTime: string;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The account the event is about; null for partner-level events (test events)',
    example: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  })
  accountIdentifier: string | null;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      'pending (due or retrying), delivered (a 2xx answered), failed (retries exhausted, or attempted before its partner webhook was removed), notDeliverable (never attempted: no webhook configured)',
    example: 'delivered',
  })
  deliveryStatus: string;

  @ApiProperty({ type: 'integer', description: 'Delivery attempts made so far', example: 1 })
  attempts: number;

  @ApiProperty({ description: 'Opaque cursor right after this event: `after` resumes the list from here', example: 'MTA0NTYuMTI' })
  cursor: string;
}

/** `GET /v1/webhooks/events`. */
@ApiSchema({ name: 'WebhookEventListResponse' })
export class WebhookEventListResponseDto extends EnvelopeDto {
  @ApiProperty({ type: [WebhookEventListItemDto], description: 'Oldest first' })
  events: WebhookEventListItemDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page; null at the end of the list', example: null })
  nextCursor: string | null;
}

/** `POST /v1/webhooks/events/{eventId}/redeliver`. */
@ApiSchema({ name: 'RedeliveredWebhookEventResponse' })
export class RedeliveredWebhookEventResponseDto extends EnvelopeDto {
  @ApiProperty({ type: WebhookEventListItemDto, description: 'The event as it stands after the redelivery request (pending, due now)' })
  event: WebhookEventListItemDto;
}
