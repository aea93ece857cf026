import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'partner_id', type: 'text' }) partnerId: string;
  @PrimaryColumn({ name: 'program_code', type: 'text' }) programCode: string;
  @PrimaryColumn({ name: 'request_id', type: 'text' }) requestId: string;
  @Column({ type: 'text' }) operation: string;
  /** sha-256 of the canonical (RFC 8785) decrypted payload. */
  @Column({ type: 'text' }) fingerprint: string;
  @Column({ name: 'response_status', type: 'integer', nullable: true }) responseStatus: number | null;
  /** The exact response text sent, replayed byte for byte; null while the call is not final (held, incomplete). */
  @Column({ name: 'response_body', type: 'text', nullable: true }) responseBody: string | null;
  /** Keyed digest of the request bytes that got the stored answer: a byte-identical retry is replayed before its body is read. */
  @Column({ name: 'request_digest', type: 'text', nullable: true }) requestDigest: string | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt: Date;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt: Date;
}
