import { Injectable } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error';
import { noteCallProgram } from '../../common/context/request-context';
import type { PartnerConfig } from '../../config/service-config';
import { EventType } from '../events/event-types';
import { OutboxService } from '../events/outbox.service';
import { TransactionRunner } from '../../infrastructure/database/transaction-runner';

export interface TestWebhookResult {
  eventId: string;
  eventType: EventType;
  programCode: string;
  /** false when the partner has no webhook configured: the event is stored but never sent. */
  webhookConfigured: boolean;
}

/** Sends a partner a test event of any type through the real outbox and dispatcher. */
@Injectable()
export class WebhookTestService {
  constructor(
    private readonly transactions: TransactionRunner,
    private readonly outbox: OutboxService,
  ) {}

  async send(partner: PartnerConfig, eventType: EventType, programCode?: string): Promise<TestWebhookResult> {
    const program = programCode ?? partner.programs[0];
    if (!program || !partner.programs.includes(program)) throw new DomainError('PROGRAM_NOT_ALLOWED');
    noteCallProgram(program);
    const eventId = await this.transactions.run(undefined, (manager) =>
      this.outbox.emit(manager, {
        partnerId: partner.partnerId,
        programCode: program,
        accountId: null,
        eventType,
        data: { test: true, description: `Test ${eventType} event` },
      }),
    );
    return { eventId, eventType, programCode: program, webhookConfigured: Boolean(partner.webhook) };
  }
}
