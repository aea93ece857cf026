import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, successExample } from '../../common/openapi/api-answers';
import { RedeliveredWebhookEventResponseDto, WebhookEventListResponseDto } from './dtos/webhook-event.dto';
import { TestWebhookResponseDto, WebhookEventResponseDto } from './dtos/webhook-responses.dto';
import { RequiresScopes } from '../../common/auth/decorators';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { ApiEmptyBody, EmptyBody } from '../../common/validation/empty-body';
import { EVENT_TYPES } from '../events/event-types';
import { EventListItem, EventLogService, EventPage, EventView } from '../events/event-log.service';
import { SendTestWebhookDto } from './dtos/send-test-webhook.dto';
import { LimitedWebhookCall } from './webhook-call-limit';
import { TestWebhookResult, WebhookTestService } from './webhook-test.service';
import { NO_QUERY, NoQuery } from '../../common/validation/validate-only';

const DELIVERY_NOTE =
  'Delivery: POST to your webhook URL, at least once, with Standard Webhooks headers webhook-id (= eventId, ' +
  'stable across retries), webhook-timestamp (Unix seconds) and webhook-signature (v1,<base64 HMAC-SHA256 of ' +
  '"{webhook-id}.{webhook-timestamp}.{body}" keyed with the base64-decoded part after whsec_). Body ' +
  '{eventId, eventType, occurredDateTime, programCode, accountIdentifier, data}, never plaintext of encrypted data. data: accountUpdated ' +
  '{status, statusReason, kycPendingGate, accountCycleDay, previous: {the same four before}, reason}; cardUpdated {paymentIdentifier, status, ' +
  'previousStatus, reason, replaces | replacedBy on a replacement}; userUpdated {userIdentifier, changed: [address | email | phoneNumber | identity]}; ' +
  'a test event {test: true, description}. Delivery is not in order (retries, several instances): compare previous with what you hold, or GET the account. ' +
  'Any 2xx acknowledges; anything else (including redirects and no answer within 10 s by default) is retried after ' +
  '10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h and 12 h by default (more than 24 h in total), then the event is marked failed. ' +
  'Each partner has its own delivery slots, so a slow receiver delays only its own events. In production the URL is https and an address ' +
  'that resolves to a non-public range is refused (outcome refusedAddress). verifyWebhook(headers, body, secret) of the SDK checks a delivery.';

const LIST_ITEM_EXAMPLE = {
  eventId: '5d0c7a5e-1b7e-4c53-9b0f-2a6f1c3d4e5f',
  eventType: 'accountUpdated',
  occurredDateTime: '2026-11-21T10:00:01.500Z',
  accountIdentifier: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  deliveryStatus: 'delivered',
  attempts: 1,
  cursor: 'MTA0NTYuMTI',
};

const EVENT_EXAMPLE = {
  eventId: '5d0c7a5e-1b7e-4c53-9b0f-2a6f1c3d4e5f',
  eventType: 'accountUpdated',
  partnerId: 'acme',
  programCode: 'sandbox',
  accountIdentifier: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  occurredDateTime: '2026-11-21T10:00:01.500Z',
  deliveryStatus: 'delivered',
  attempts: 1,
  nextAttemptDateTime: null,
  deliveredDateTime: '2026-11-21T10:00:02.042Z',
  deliveries: [
    {
      attempt: 1,
      url: 'https://partner.example.com/hooks',
      outcome: 'delivered',
      statusCode: 200,
      durationMs: 42,
      attemptedDateTime: '2026-11-21T10:00:02.000Z',
    },
  ],
};

@ApiTags('Webhooks')
@Controller()
export class WebhooksController {
  constructor(
    private readonly tests: WebhookTestService,
    private readonly events: EventLogService,
  ) {}

  @Post('v1/webhooks/test')
  @HttpCode(200)
  @RequiresScopes('webhooks')
  @LimitedWebhookCall()
  @ApiOperation({
    operationId: 'sendTestWebhook',
    summary: 'Send a test event of any of the 13 event types to the calling partner',
    description: DELIVERY_NOTE,
  })
  @ApiBody({
    type: SendTestWebhookDto,
    examples: { accountUpdated: { summary: 'A test accountUpdated event', value: { eventType: 'accountUpdated', programCode: 'sandbox' } } },
  })
  @ApiAnswer(TestWebhookResponseDto, 'The event was stored and is delivered like any other', {
    success: {
      summary: 'Queued',
      value: successExample({ eventId: '5d0c7a5e-1b7e-4c53-9b0f-2a6f1c3d4e5f', eventType: 'accountUpdated', programCode: 'sandbox', webhookConfigured: true }),
    },
  })
  @ApiErrors({ 400: ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'REQUIRED_FIELD_MISSING', 'INVALID_FIELD'] })
  sendTest(@CurrentPrincipal() principal: Principal, @Body() body: SendTestWebhookDto, @NoQuery() _query: undefined): Promise<TestWebhookResult> {
    return this.tests.send(principal.partner, body.eventType, body.programCode);
  }

  @Get('v1/webhooks/events')
  @RequiresScopes('webhooks')
  @ApiOperation({
    operationId: 'listWebhookEvents',
    summary: "The partner's own events, oldest first, a page at a time",
    description:
      'Pages never repeat or skip an event, even while new events are written between pages: an event appears once every ' +
      'transaction older than its own has ended (usually milliseconds after it is written). Oldest first means in the order ' +
      'their changes were made: occurredDateTime is when that change began, so a change that waited for another on the same ' +
      'account can list after one whose occurredDateTime is later by that wait. Events stay listable for at ' +
      'least 30 days; an undelivered event is never purged.',
  })
  @ApiQuery({
    name: 'after',
    required: false,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
    description: 'nextCursor of the previous page (or the cursor of an event); omitted: from the oldest event',
  })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'eventType', required: false, enum: EVENT_TYPES, description: 'Only events of this type (400/100/5 for an unknown type)' })
  @ApiAnswer(WebhookEventListResponseDto, 'The envelope with events and nextCursor', {
    success: { summary: 'The last page', value: successExample({ events: [LIST_ITEM_EXAMPLE], nextCursor: null }) },
  })
  @ApiErrors(
    { 400: ['BAD_CURSOR_OR_LIMIT', 'INVALID_FIELD', 'UNKNOWN_PROPERTY'] },
    {
      400:
        'A cursor not in the form this list returns (cursors are positions in the list: a well-formed one past its end lists nothing) or a limit that is not an integer 1..100 written plainly (no leading zero, sign or exponent); an unknown eventType; ' +
        'any other query parameter (a misspelt cursor would list from the start again)',
    },
  )
  listEvents(
    @CurrentPrincipal() principal: Principal,
    @Query('after') after?: unknown,
    @Query('limit') limit?: unknown,
    @Query('eventType') eventType?: unknown,
    @NoQuery(['after', 'limit', 'eventType']) _others?: undefined,
  ): Promise<EventPage> {
    return this.events.list(principal.partner, { after, limit, eventType });
  }

  @Post('v1/webhooks/events/:eventId/redeliver')
  @HttpCode(200)
  @RequiresScopes('webhooks')
  @LimitedWebhookCall()
  @ApiOperation({
    operationId: 'redeliverWebhookEvent',
    summary: "Make one of the partner's events due for one more delivery attempt now",
    description:
      'Whatever its state (delivered, failed or pending), the event is pending again and the delivery poller sends it ' +
      'within a second, signed as usual under the same webhook-id. An acknowledged attempt ends it. Of a delivered or failed event ' +
      'it is the one attempt asked for: refused, no retry follows, and a delivered event is delivered again as it was. Of a pending ' +
      'event it takes the place of the next retry, and the retry schedule goes on. For a partner without a webhook ' +
      'nothing is sent and the event is answered as it is.',
  })
  @ApiParam({ name: 'eventId', format: 'uuid' })
  @ApiEmptyBody()
  @ApiAnswer(RedeliveredWebhookEventResponseDto, 'The envelope with the event, pending and due now', {
    success: { summary: 'The event made due again', value: successExample({ event: { ...LIST_ITEM_EXAMPLE, deliveryStatus: 'pending' } }) },
  })
  @ApiErrors(
    { 400: ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'INVALID_FIELD'], 404: ['EVENT_NOT_FOUND'] },
    { 400: 'A body other than none or {}, or any query parameter', 404: "Unknown event or another partner's event" },
  )
  async redeliver(
    @CurrentPrincipal() principal: Principal,
    @Param('eventId') eventId: string,
    @Body() _body: EmptyBody,
    @NoQuery() _query: undefined,
  ): Promise<{ event: EventListItem }> {
    const event = await this.events.redeliver(principal.partner, eventId);
    if (!event) throw new DomainError('EVENT_NOT_FOUND');
    return { event };
  }

  @Get('v1/webhooks/events/:eventId')
  @RequiresScopes('webhooks')
  @ApiOperation({
    operationId: 'getWebhookEvent',
    summary: "Delivery state and attempt log of one of the partner's events",
    description:
      'The event as listed, with its next attempt, when it was delivered and each finished attempt (an attempt in flight is counted in attempts before it is logged).',
  })
  @ApiParam({ name: 'eventId', format: 'uuid' })
  @ApiAnswer(WebhookEventResponseDto, 'The event with its delivery state and attempts', {
    success: { summary: 'A delivered event', value: successExample({ event: EVENT_EXAMPLE }) },
  })
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'], 404: ['EVENT_NOT_FOUND'] }, { 400: NO_QUERY, 404: "Unknown event or another partner's event" })
  async partnerEvent(@CurrentPrincipal() principal: Principal, @Param('eventId') eventId: string, @NoQuery() _query: undefined): Promise<{ event: EventView }> {
    const event = await this.events.describe(eventId, principal.partner);
    if (!event) throw new DomainError('EVENT_NOT_FOUND');
    return { event };
  }

  @Get('v1/care/webhooks/events/:eventId')
  @RequiresScopes('care')
  @ApiOperation({
    operationId: 'careGetWebhookEvent',
    summary: "Care: delivery state and attempt log of an event of the care client's programs (status code, error, duration per attempt)",
  })
  @ApiAnswer(WebhookEventResponseDto, 'The event with its delivery state and attempts', {
    success: { summary: 'A delivered event', value: successExample({ event: EVENT_EXAMPLE }) },
  })
  @ApiErrors(
    { 400: ['UNKNOWN_PROPERTY'], 404: ['EVENT_NOT_FOUND'] },
    { 400: NO_QUERY, 404: "Unknown event, or one of a program outside the care client's programs" },
  )
  async careEvent(@CurrentPrincipal() principal: Principal, @Param('eventId') eventId: string, @NoQuery() _query: undefined): Promise<{ event: EventView }> {
    const event = await this.events.describe(eventId, { programs: principal.partner.programs });
    if (!event) throw new DomainError('EVENT_NOT_FOUND');
    return { event };
  }
}
