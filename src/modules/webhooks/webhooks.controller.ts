import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresScopes } from '../../common/auth/decorators';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { EventLogService, EventView } from '../events/event-log.service';
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
