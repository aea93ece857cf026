import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { WebhookCallLimiter, WebhookCallLimitGuard } from './webhook-call-limit';
import { WebhookTestService } from './webhook-test.service';
import { WebhooksController } from './webhooks.controller';

/** Partner-facing webhook operations; delivery itself lives in EventsModule. */
@Module({
  imports: [EventsModule],
  controllers: [WebhooksController],
  providers: [WebhookTestService, WebhookCallLimiter, WebhookCallLimitGuard],
})
export class WebhooksModule {}
