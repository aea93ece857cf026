import { Column, Entity, PrimaryColumn } from 'typeorm';

export type LimitKeyKind = 'ssn' | 'itin' | 'phone';

/** One row per (account, key) that SERVICE.md's limits count; `keyBidx` is a blind index, never plaintext. */
@Entity('account_limit_keys')
export class AccountLimitKey {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' }) accountId: string;
  @PrimaryColumn({ name: 'key_kind', type: 'text' }) keyKind: LimitKeyKind;
  @Column({ name: 'key_bidx', type: 'text' }) keyBidx: string;
  @Column({ name: 'program_code', type: 'text' }) programCode: string;
  @Column({ name: 'account_type', type: 'text' }) accountType: string;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
}
