import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequiresScopes } from '../../common/auth/decorators';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { EVENT_TYPES } from '../events/event-types';
import { EventListItem, EventLogService, EventPage, EventView } from '../events/event-log.service';
import { RedeliveredWebhookEventDto, WebhookEventListDto } from './dtos/webhook-event.dto';
import { SendTestWebhookDto } from './dtos/send-test-webhook.dto';
import { TestWebhookResult, WebhookTestService } from './webhook-test.service';

const DELIVERY_NOTE =
  'Delivery: POST to the partner webhook.url, at least once, with Standard Webhooks headers webhook-id (= eventId, ' +
  'stable across retries), webhook-timestamp (Unix seconds) and webhook-signature (v1,<base64 HMAC-SHA256 of ' +
  '"{webhook-id}.{webhook-timestamp}.{body}" keyed with the base64-decoded part after whsec_). Body ' +
  '{eventId, eventType, occurredDateTime, programCode, accountIdentifier, data}, never plaintext of encrypted data. ' +
  'Any 2xx acknowledges; anything else (including redirects and a 10 s timeout) is retried after ' +
  'WEBHOOK_RETRY_DELAYS_MS (default 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 12 h: more than 24 h in total), then the event is marked failed.';

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
  @ApiOperation({ summary: 'Send a test event of any of the 13 event types to the calling partner', description: DELIVERY_NOTE })
  @ApiOkResponse({ description: 'The envelope with eventId, eventType, programCode and webhookConfigured' })
  sendTest(@CurrentPrincipal() principal: Principal, @Body() body: SendTestWebhookDto): Promise<TestWebhookResult> {
    return this.tests.send(principal.partner, body.eventType, body.programCode);
  }

  @Get('v1/webhooks/events')
  @RequiresScopes('webhooks')
  @ApiOperation({
    summary: "The partner's own events, oldest first, a page at a time",
    description:
      'Pages never repeat or skip an event, even while new events are written between pages: an event appears once every ' +
      'transaction older than its own has ended (usually milliseconds after it is written). Events stay listable for at ' +
      'least 30 days; an undelivered event is never purged.',
  })
  @ApiQuery({ name: 'after', required: false, description: 'nextCursor of the previous page (or the cursor of an event); omitted: from the oldest event' })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'eventType', required: false, enum: EVENT_TYPES, description: 'Only events of this type (400/100/5 for an unknown type)' })
  @ApiOkResponse({ type: WebhookEventListDto, description: 'The envelope with events and nextCursor' })
  @ApiBadRequestResponse({ description: 'A cursor this service did not issue, or a limit outside 1..100 (400, code 100, subCode 6)' })
  listEvents(
    @CurrentPrincipal() principal: Principal,
    @Query('after') after?: unknown,
    @Query('limit') limit?: unknown,
    @Query('eventType') eventType?: unknown,
  ): Promise<EventPage> {
    return this.events.list(principal.partner.partnerId, { after, limit, eventType });
  }

  @Post('v1/webhooks/events/:eventId/redeliver')
  @HttpCode(200)
  @RequiresScopes('webhooks')
  @ApiOperation({
    summary: 'Make one of the partner\'s events due for one more delivery attempt now',
    description:
      'Whatever its state (delivered, failed or pending), the event is pending again and the delivery poller sends it ' +
      'within a second, signed as usual under the same webhook-id. An acknowledged attempt ends it; a refused one follows ' +
      'the rest of the retry schedule (none left for an event that had already failed). For a partner without a webhook ' +
      'nothing is sent and the event is answered as it is.',
  })
  @ApiParam({ name: 'eventId', format: 'uuid' })
  @ApiOkResponse({ type: RedeliveredWebhookEventDto, description: 'The envelope with the event' })
  @ApiNotFoundResponse({ description: "Unknown event or another partner's event (404, code 10, subCode 0)" })
  async redeliver(@CurrentPrincipal() principal: Principal, @Param('eventId') eventId: string): Promise<{ event: EventListItem }> {
    const event = await this.events.redeliver(principal.partner.partnerId, eventId);
    if (!event) throw new DomainError('EVENT_NOT_FOUND');
    return { event };
  }

  @Get('v1/webhooks/events/:eventId')
  @RequiresScopes('webhooks')
  @ApiOperation({ summary: "Delivery state and attempt log of one of the partner's events" })
  @ApiOkResponse({ description: '{ event: { eventId, eventType, deliveryStatus (pending|delivered|failed|notDeliverable), attempts, deliveries: [...] } }' })
  @ApiNotFoundResponse({ description: 'Unknown event or another partner\'s event (404, code 10, subCode 0)' })
  async partnerEvent(@CurrentPrincipal() principal: Principal, @Param('eventId') eventId: string): Promise<{ event: EventView }> {
    const event = await this.events.describe(eventId, { partnerId: principal.partner.partnerId });
    if (!event) throw new DomainError('EVENT_NOT_FOUND');
    return { event };
  }

  @Get('v1/care/webhooks/events/:eventId')
  @RequiresScopes('care')
  @ApiOperation({ summary: "Care: delivery state and attempt log of an event of the care client's programs (status code, error, duration per attempt)" })
  @ApiOkResponse({ description: '{ event: { …, deliveries: [{ attempt, url, statusCode, error, durationMs, attemptedDateTime }] } }' })
  @ApiNotFoundResponse({ description: 'Unknown event, or one of a program outside the care client\'s programs (404, code 10, subCode 0)' })
  async careEvent(@CurrentPrincipal() principal: Principal, @Param('eventId') eventId: string): Promise<{ event: EventView }> {
    const event = await this.events.describe(eventId, { programs: principal.partner.programs });
    if (!event) throw new DomainError('EVENT_NOT_FOUND');
    return { event };
  }
}
