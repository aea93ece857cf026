import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Maps `users`. Every `*Enc` column is FieldCipher ciphertext bound to `users.<field>` and the row's id
 * (`v2`; values written before are `v1`, the column only);
 * `*Bidx` columns are BlindIndex values for equality look-ups.
 */
@Entity('users')
export class User {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId: string;
  @Column({ name: 'is_primary', type: 'boolean', default: true }) isPrimary: boolean;
  @Column({ type: 'text' }) status: string;
  @Column({ name: 'first_name_enc', type: 'text' }) firstNameEnc: string;
  @Column({ name: 'middle_name_enc', type: 'text', nullable: true }) middleNameEnc: string | null;
  @Column({ name: 'last_name_enc', type: 'text' }) lastNameEnc: string;
  @Column({ name: 'date_of_birth_enc', type: 'text' }) dateOfBirthEnc: string;
  @Column({ name: 'ssn_enc', type: 'text', nullable: true }) ssnEnc: string | null;
  @Column({ name: 'ssn_suffix_enc', type: 'text', nullable: true }) ssnSuffixEnc: string | null;
  @Column({ name: 'itin_enc', type: 'text', nullable: true }) itinEnc: string | null;
  @Column({ name: 'matricula_enc', type: 'text', nullable: true }) matriculaEnc: string | null;
  @Column({ name: 'email_enc', type: 'text', nullable: true }) emailEnc: string | null;
  @Column({ name: 'ssn_bidx', type: 'text', nullable: true }) ssnBidx: string | null;
  @Column({ name: 'itin_bidx', type: 'text', nullable: true }) itinBidx: string | null;
  @Column({ name: 'matricula_bidx', type: 'text', nullable: true }) matriculaBidx: string | null;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
