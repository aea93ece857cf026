import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Maps `scan_captures`; `id` is the onboardingID. The scanned number is stored encrypted with a blind index. */
@Entity('scan_captures')
export class ScanCapture {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'partner_id', type: 'text' }) partnerId: string;
  @Column({ name: 'program_code', type: 'text' }) programCode: string;
  @Column({ name: 'id_type', type: 'text' }) idType: string;
  @Column({ name: 'id_number_enc', type: 'text' }) idNumberEnc: string;
  @Column({ name: 'id_number_bidx', type: 'text' }) idNumberBidx: string;
  @Column({ name: 'issuing_country', type: 'text' }) issuingCountry: string;
  @Column({ type: 'text' }) status: string;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt: Date;
  @Column({ name: 'used_at', type: 'timestamptz', nullable: true }) usedAt: Date | null;
  @Column({ name: 'used_by_account_id', type: 'uuid', nullable: true }) usedByAccountId: string | null;
}
