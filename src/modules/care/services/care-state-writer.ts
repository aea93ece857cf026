import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Account } from '../../accounts/entities/account.entity';
import { PaymentInstrument, PaymentInstrumentStatus } from '../../accounts/entities/payment-instrument.entity';
import { AccountPatch, AccountRecordsService } from '../../accounts/services/account-records.service';
import { PaymentInstrumentService } from '../../accounts/services/payment-instrument.service';
import { OutboxService } from '../../events/outbox.service';
import { AccountSnapshot } from '../../audit/care-audit.service';

function published(account: Account) {
  return { status: account.status, statusReason: account.statusReason, kycPendingGate: account.kycPendingGate, accountCycleDay: account.accountCycleDay };
}

/**
 * Every state change care makes goes through here, so that each one emits its event
 * (accountUpdated / cardUpdated) in the same transaction as the change.
 */
@Injectable()
export class CareStateWriter {
  constructor(
    private readonly accounts: AccountRecordsService,
    private readonly instruments: PaymentInstrumentService,
    private readonly outbox: OutboxService,
  ) {}

  async updateAccount(manager: EntityManager, before: Account, patch: AccountPatch, reason: string): Promise<Account> {
    const after = await this.accounts.update(manager, before, patch);
    if (JSON.stringify(published(after)) !== JSON.stringify(published(before))) {
      await this.outbox.emit(manager, {
        partnerId: after.partnerId,
        programCode: after.programCode,
        accountId: after.id,
        eventType: 'accountUpdated',
        data: { ...published(after), previous: published(before), reason },
      });
    }
    return after;
  }

  async setCardStatus(
    manager: EntityManager,
    account: Account,
    card: PaymentInstrument,
    status: PaymentInstrumentStatus,
    reason: string,
    replacedBy: string | null = null,
  ): Promise<void> {
    if (card.status === status) return;
    await this.instruments.setStatus(manager, card.id, status, replacedBy);
    await this.cardUpdated(manager, account, { paymentIdentifier: card.id, status, previousStatus: card.status, reason, ...(replacedBy ? { replacedBy } : {}) });
  }

  async cardUpdated(manager: EntityManager, account: Account, data: Record<string, unknown>): Promise<void> {
    await this.outbox.emit(manager, { partnerId: account.partnerId, programCode: account.programCode, accountId: account.id, eventType: 'cardUpdated', data });
  }

  cards(manager: EntityManager, accountId: string): Promise<PaymentInstrument[]> {
    return this.instruments.listFor(manager, accountId);
  }

  async snapshot(manager: EntityManager, account: Account): Promise<AccountSnapshot> {
    const cards = await this.instruments.listFor(manager, account.id);
    return { ...published(account), paymentInstruments: cards.map((card) => ({ paymentIdentifier: card.id, status: card.status })) };
  }
}
