import { Column, Entity, PrimaryColumn } from 'typeorm';

export type AddressType = 'home' | 'business' | 'mailing';

/** Maps `user_addresses`; the whole address (lines, city, state, zip, country) is one encrypted JSON value. */
@Entity('user_addresses')
export class UserAddress {
  @PrimaryColumn('uuid') id: string;
  @Column({ name: 'user_id', type: 'uuid' }) userId: string;
  @Column({ type: 'text' }) type: AddressType;
  @Column({ name: 'is_default', type: 'boolean', default: false }) isDefault: boolean;
  @Column({ name: 'address_enc', type: 'text' }) addressEnc: string;
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' }) createdAt: Date;
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' }) updatedAt: Date;
}
