import { randomInt, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { FieldCipher } from '../../../infrastructure/crypto/field-cipher';
import { WriteBatch } from '../../../infrastructure/database/write-batch';
import { PaymentInstrument, PaymentInstrumentStatus } from '../entities/payment-instrument.entity';
import { isUuid } from '../../../common/validation/identifiers';

export interface NewPaymentInstrument {
  accountId: string;
  userId: string;
  status: PaymentInstrumentStatus;
  /** Already embossed (upper case, substitutes), see `embossName`. */
  embossedName: string;
  embossedBusinessName: string | null;
}

/** Cards of an account: issued at enrollment, replaced and blocked by care. */
/** The partner-facing card (GET account, enrollment and care answers). */
export interface PaymentInstrumentView {
  paymentIdentifier: string;
  type: string;
  status: string;
  last4: string;
  expirationDate: string;
  embossedName: string;
  embossedBusinessName?: string;
}

@Injectable()
export class PaymentInstrumentService {
  constructor(private readonly cipher: FieldCipher) {}

  /** A new card, built in memory (number, expiry four years ahead); `stage` writes it. */
  build(input: NewPaymentInstrument & { id?: string }, now: Date): PaymentInstrument {
    const expires = new Date(Date.UTC(now.getUTCFullYear() + 4, now.getUTCMonth(), 1));
    const { embossedName, embossedBusinessName, id = randomUUID(), ...rest } = input;
    return Object.assign(new PaymentInstrument(), {
      id,
      ...rest,
      embossedName: null,
      embossedBusinessName: null,
      embossedNameEnc: this.cipher.encrypt(embossedName, contextOf(id, 'name')),
      embossedBusinessNameEnc: embossedBusinessName === null ? null : this.cipher.encrypt(embossedBusinessName, contextOf(id, 'businessName')),
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
      [
        'id',
        'account_id',
        'user_id',
        'type',
        'status',
        'last4',
        'expiration_date',
        'embossed_name_enc',
        'embossed_business_name_enc',
        'created_at',
        'updated_at',
      ],
      [
        [
          card.id,
          card.accountId,
          card.userId,
          card.type,
          card.status,
          card.last4,
          card.expirationDate,
          card.embossedNameEnc,
          card.embossedBusinessNameEnc,
          card.createdAt,
          card.updatedAt,
        ],
      ],
    );
  }

  /** The account holding a card (the care console's search by paymentIdentifier); null for an unknown or malformed id. */
  async accountIdOf(manager: EntityManager, paymentIdentifier: string): Promise<string | null> {
    if (!isUuid(paymentIdentifier)) return null;
    const card = await manager.findOne(PaymentInstrument, { where: { id: paymentIdentifier }, select: { id: true, accountId: true } });
    return card?.accountId ?? null;
  }

  listFor(manager: EntityManager, accountId: string): Promise<PaymentInstrument[]> {
    return manager.find(PaymentInstrument, { where: { accountId }, order: { createdAt: 'ASC' } });
  }

  stageStatus(batch: WriteBatch, instrumentId: string, status: PaymentInstrumentStatus, replacedBy: string | null): void {
    batch.write(`update payment_instruments set status = $2, replaced_by = coalesce($3::uuid, replaced_by), updated_at = now() where id = $1`, [
      instrumentId,
      status,
      replacedBy,
    ]);
  }

  /** The card as partners see it, embossed names decrypted (or read as stored by cards issued before they were encrypted). */
  view(
    card: Pick<
      PaymentInstrument,
      'id' | 'type' | 'status' | 'last4' | 'expirationDate' | 'embossedName' | 'embossedBusinessName' | 'embossedNameEnc' | 'embossedBusinessNameEnc'
    >,
  ): PaymentInstrumentView {
    const embossedName = card.embossedNameEnc ? this.cipher.decrypt(card.embossedNameEnc, contextOf(card.id, 'name')) : (card.embossedName ?? '');
    const embossedBusinessName = card.embossedBusinessNameEnc
      ? this.cipher.decrypt(card.embossedBusinessNameEnc, contextOf(card.id, 'businessName'))
      : card.embossedBusinessName;
    return {
      paymentIdentifier: card.id,
      type: card.type,
      status: card.status,
      last4: card.last4,
      expirationDate: card.expirationDate.trim(),
      embossedName,
      ...(embossedBusinessName ? { embossedBusinessName } : {}),
    };
  }
}

/** AES-GCM additional data: the column and the row, so a ciphertext moved to another card does not decrypt. */
function contextOf(cardId: string, field: 'name' | 'businessName'): string {
  return `payment_instruments.embossed_${field === 'name' ? 'name' : 'business_name'}:${cardId}`;
}
