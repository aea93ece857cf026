import { randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { PaymentInstrument, PaymentInstrumentStatus } from '../entities/payment-instrument.entity';

export interface NewPaymentInstrument {
  accountId: string;
  userId: string;
  status: PaymentInstrumentStatus;
  /** Already embossed (upper case, substitutes), see `embossName`. */
  embossedName: string;
  embossedBusinessName: string | null;
}

/** Cards of an account: issued at enrollment, replaced and blocked by care. */
@Injectable()
export class PaymentInstrumentService {
  /** A new card, built in memory (number, expiry four years ahead); `stage` writes it. */
  build(input: NewPaymentInstrument, now: Date): PaymentInstrument {
    const expires = new Date(Date.UTC(now.getUTCFullYear() + 4, now.getUTCMonth(), 1));
    return Object.assign(new PaymentInstrument(), {
      id: randomUUID(),
      ...input,
      type: 'virtual',
      last4: String(randomInt(0, 10_000)).padStart(4, '0'),
      expirationDate: expires.toISOString().slice(0, 7),
      replacedBy: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  stage(batch: WriteBatch, card: PaymentInstrument): void {
    batch.insert(
      'payment_instruments',
      ['id', 'account_id', 'user_id', 'type', 'status', 'last4', 'expiration_date', 'embossed_name', 'embossed_business_name', 'created_at', 'updated_at'],
      [[card.id, card.accountId, card.userId, card.type, card.status, card.last4, card.expirationDate, card.embossedName, card.embossedBusinessName, card.createdAt, card.updatedAt]],
    );
  }

  /** Issues a card in the caller's transaction; the card is returned as written (no read-back). */
  async issue(manager: EntityManager, input: NewPaymentInstrument, now = new Date()): Promise<PaymentInstrument> {
    const card = this.build(input, now);
    const batch = new WriteBatch();
    this.stage(batch, card);
    await batch.execute(manager);
    return card;
  }

  listFor(manager: EntityManager, accountId: string): Promise<PaymentInstrument[]> {
    return manager.find(PaymentInstrument, { where: { accountId }, order: { createdAt: 'ASC' } });
  }

  async setStatus(manager: EntityManager, instrumentId: string, status: PaymentInstrumentStatus, replacedBy: string | null = null): Promise<void> {
    await manager.update(PaymentInstrument, { id: instrumentId }, { status, ...(replacedBy ? { replacedBy } : {}), updatedAt: () => 'now()' });
  }
}
