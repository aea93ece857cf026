import { Column, Entity, PrimaryColumn } from 'typeorm';

export type AccountType = 'consumer' | 'business';
export type AccountStatus = 'pending' | 'normal' | 'locked' | 'closed';
export type KycPendingGate = 'none' | 'manual';
export type IdentityKind = 'ssn' | 'itin' | 'ssnSuffix' | 'matricula' | 'none';

/** Maps `accounts` of the initial migration. `encryptedAccountDataEnc` holds direct-deposit data (AES-GCM). */
@Entity('accounts')
export class Account {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'partner_id', type: 'text' }) partnerId: string;
  @Column({ name: 'program_code', type: 'text' }) programCode: string;
  @Column({ name: 'account_type', type: 'text' }) accountType: AccountType;
  @Column({ type: 'text' }) status: AccountStatus;
  @Column({ name: 'status_reason', type: 'text', nullable: true }) statusReason: string | null;
  @Column({ name: 'kyc_pending_gate', type: 'text', default: 'none' }) kycPendingGate: KycPendingGate;
  @Column({ name: 'account_cycle_day', type: 'smallint', nullable: true }) accountCycleDay: number | null;
  @Column({ type: 'char', length: 3 }) currency: string;
  @Column({ name: 'identity_kind', type: 'text' }) identityKind: IdentityKind;
  @Column({ name: 'encrypted_account_data_enc', type: 'text', nullable: true }) encryptedAccountDataEnc: string | null;
  @Column({ name: 'request_id', type: 'text', nullable: true }) requestId: string | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'activated_at', type: 'timestamptz', nullable: true }) activatedAt: Date | null;
  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true }) closedAt: Date | null;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
  @Column({ type: 'integer', default: 1 }) version: number;
  /** The status and reason a care lock or fraud block found, for unlock to restore (account lifecycle). */
  @Column({ name: 'restore_status', type: 'text', nullable: true }) restoreStatus: AccountStatus | null;
  @Column({ name: 'restore_status_reason', type: 'text', nullable: true }) restoreStatusReason: string | null;
  /** The card unblock run that still applies (set by a fraud block removal) and its last attempt handled. */
  @Column({ name: 'unblock_run_id', type: 'uuid', nullable: true }) unblockRunId: string | null;
  @Column({ name: 'unblock_attempt', type: 'integer', default: 0 }) unblockAttempt: number;
}
