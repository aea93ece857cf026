import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Maps `purses`; every account has exactly one primary purse (unique partial index). */
@Entity('purses')
export class Purse {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId: string;
  @Column({ name: 'purse_type', type: 'text' }) purseType: 'primary';
  @Column({ type: 'char', length: 3 }) currency: string;
  /** numeric(18,2): kept as the driver's decimal string, never a float. */
  @Column({ name: 'available_balance', type: 'numeric', precision: 18, scale: 2, default: 0 }) availableBalance: string;
  @Column({ name: 'ledger_balance', type: 'numeric', precision: 18, scale: 2, default: 0 }) ledgerBalance: string;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
}
