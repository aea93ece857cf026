import { Module } from '@nestjs/common';
import { WebhookTestService } from './webhook-test.service';
import { WebhooksController } from './webhooks.controller';

/** Partner-facing webhook operations; delivery itself lives in the global EventsModule. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhookTestService],
})
export class WebhooksModule {}
