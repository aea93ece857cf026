import { randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
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
  async issue(manager: EntityManager, input: NewPaymentInstrument, now = new Date()): Promise<PaymentInstrument> {
    const expires = new Date(Date.UTC(now.getUTCFullYear() + 4, now.getUTCMonth(), 1));
    const instrument = manager.create(PaymentInstrument, {
      id: randomUUID(),
      ...input,
      type: 'virtual',
      last4: String(randomInt(0, 10_000)).padStart(4, '0'),
      expirationDate: expires.toISOString().slice(0, 7),
      replacedBy: null,
    });
    await manager.insert(PaymentInstrument, instrument);
    return manager.findOneOrFail(PaymentInstrument, { where: { id: instrument.id } });
  }

  listFor(manager: EntityManager, accountId: string): Promise<PaymentInstrument[]> {
    return manager.find(PaymentInstrument, { where: { accountId }, order: { createdAt: 'ASC' } });
  }

  async setStatus(manager: EntityManager, instrumentId: string, status: PaymentInstrumentStatus, replacedBy: string | null = null): Promise<void> {
    await manager.update(PaymentInstrument, { id: instrumentId }, { status, ...(replacedBy ? { replacedBy } : {}), updatedAt: () => 'now()' });
  }
}
