import { Column, Entity, PrimaryColumn } from 'typeorm';

export type LimitKeyKind = 'ssn' | 'itin' | 'phone';

/**
 * One row per (account, key) that SERVICE.md's limits count; `keyBidx` is a blind index, never
 * plaintext. An account holds one current key of each kind; a default phone it left stays as a row
 * with `retiredAt` set, counted by the lifetime limits only (if the account was activated).
 */
@Entity('account_limit_keys')
export class AccountLimitKey {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' }) accountId: string;
  @PrimaryColumn({ name: 'key_kind', type: 'text' }) keyKind: LimitKeyKind;
  @PrimaryColumn({ name: 'key_bidx', type: 'text' }) keyBidx: string;
  @Column({ name: 'retired_at', type: 'timestamptz', nullable: true }) retiredAt: Date | null;
  @Column({ name: 'program_code', type: 'text' }) programCode: string;
  @Column({ name: 'account_type', type: 'text' }) accountType: string;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
}
