import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { EnvelopeDto } from '../../../common/openapi/envelope.dto';
import { DELIVERY_OUTCOMES, DeliveryOutcome, EVENT_TYPES } from '../../events/event-types';

@ApiSchema({ name: 'TestWebhookResponse' })
export class TestWebhookResponseDto extends EnvelopeDto {
  @ApiProperty({ format: 'uuid', example: '5d0c7a5e-1b7e-4c53-9b0f-2a6f1c3d4e5f' }) eventId: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'accountUpdated' }) eventType: string;
  @ApiProperty({ example: 'sandbox' }) programCode: string;
  @ApiProperty({ description: 'false when the partner has no webhook configured: the event is stored but never sent', example: true })
  webhookConfigured: boolean;
}

@ApiSchema({ name: 'WebhookDelivery', description: 'One delivery attempt' })
export class WebhookDeliveryDto {
  @ApiProperty({ type: 'integer', example: 1 }) attempt: number;
  @ApiProperty({
    description: "The webhook's address as called, without its credentials, query string or fragment (which may carry a secret)",
    example: 'https://partner.example.com/hooks',
  })
  url: string;
  @ApiProperty({
    enum: DELIVERY_OUTCOMES,
    description:
      'delivered (a 2xx answered), httpStatus (another status, in statusCode; redirects are not followed), timeout (no answer within ' +
      'the delivery timeout, default 10 s), connectionRefused (no HTTP answer: the connection could not be opened, the name did not resolve, ' +
      'or it closed without an answer), tls (the TLS handshake or the certificate failed), refusedAddress (production: the host resolves ' +
      'to a loopback, private, link-local, unique-local or other non-public address; nothing was sent)',
    example: 'delivered',
  })
  outcome: DeliveryOutcome;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The HTTP status the receiver answered; null when it did not answer', example: 200 })
  statusCode: number | null;
  @ApiProperty({ type: 'integer', example: 42 }) durationMs: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T10:00:02.000Z' }) attemptedDateTime: string;
}

@ApiSchema({ name: 'WebhookEvent' })
export class WebhookEventDto {
  @ApiProperty({ format: 'uuid', example: '5d0c7a5e-1b7e-4c53-9b0f-2a6f1c3d4e5f' }) eventId: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'accountUpdated' }) eventType: string;
  @ApiProperty({ example: 'acme' }) partnerId: string;
  @ApiProperty({ example: 'sandbox' }) programCode: string;
  @ApiProperty({ type: 'string', nullable: true, example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }) accountIdentifier: string | null;
  @ApiProperty({
    format: 'date-time',
    description: 'When the change began: the start of the transaction that wrote it (UTC)',
    example: '2026-11-21T10:00:01.500Z',
  })
  occurredDateTime: string;
  @ApiProperty({ enum: ['pending', 'delivered', 'failed', 'notDeliverable'], example: 'delivered' }) deliveryStatus: string;
  @ApiProperty({ type: 'integer', example: 1 }) attempts: number;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'When the next attempt is due. While an attempt is in flight, when its lease ends (30 seconds after it began by default): an attempt ' +
      'that ends sooner sets the real next attempt, and one lost with its instance is made again then. Null when no attempt is due',
    example: null,
  })
  nextAttemptDateTime: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-21T10:00:02.042Z' }) deliveredDateTime: string | null;
  @ApiProperty({ type: [WebhookDeliveryDto] }) deliveries: WebhookDeliveryDto[];
}

@ApiSchema({ name: 'WebhookEventResponse' })
export class WebhookEventResponseDto extends EnvelopeDto {
  @ApiProperty({ type: WebhookEventDto }) event: WebhookEventDto;
}
