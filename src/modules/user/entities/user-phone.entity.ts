import { Column, Entity, PrimaryColumn } from 'typeorm';

export type PhoneType = 'mobile' | 'home' | 'work' | 'business';

/** Maps `user_phones`; the number is encrypted, `numberBidx` serves the phone limits. */
@Entity('user_phones')
export class UserPhone {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'user_id', type: 'uuid' }) userId: string;
  @Column({ name: 'phone_type', type: 'text' }) phoneType: PhoneType;
  @Column({ name: 'is_default', type: 'boolean', default: false }) isDefault: boolean;
  @Column({ name: 'number_enc', type: 'text' }) numberEnc: string;
  @Column({ name: 'number_bidx', type: 'text' }) numberBidx: string;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
