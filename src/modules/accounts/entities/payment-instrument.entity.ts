import { Column, Entity, PrimaryColumn } from 'typeorm';

export type PaymentInstrumentStatus = 'active' | 'inactive' | 'blocked' | 'replaced' | 'closed';

/** Maps `payment_instruments`; `id` is the partner-facing paymentIdentifier. */
@Entity('payment_instruments')
export class PaymentInstrument {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId: string;
  @Column({ name: 'user_id', type: 'uuid' }) userId: string;
  @Column({ type: 'text', default: 'virtual' }) type: string;
  @Column({ type: 'text' }) status: PaymentInstrumentStatus;
  @Column({ type: 'char', length: 4 }) last4: string;
  /** YYYY-MM */
  @Column({ name: 'expiration_date', type: 'char', length: 7 }) expirationDate: string;
  /** Plaintext of rows written before embossed names were encrypted; null for every new card. */
  @Column({ name: 'embossed_name', type: 'text', nullable: true }) embossedName: string | null;
  @Column({ name: 'embossed_business_name', type: 'text', nullable: true }) embossedBusinessName: string | null;
  /** AES-GCM, bound to this row (PaymentInstrumentService is the only reader). */
  @Column({ name: 'embossed_name_enc', type: 'text', nullable: true }) embossedNameEnc: string | null;
  @Column({ name: 'embossed_business_name_enc', type: 'text', nullable: true }) embossedBusinessNameEnc: string | null;
  @Column({ name: 'replaced_by', type: 'uuid', nullable: true }) replacedBy: string | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
