import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * The non-sensitive part of businessData, kept queryable in `data`. Address, zip codes, email and
 * phone are personal contact data (CONTRACT.md section 5), so they sit in `contactEnc`, encrypted.
 */
export interface BusinessProfileData {
  businessIndustry: string;
  businessState: string;
  businessCountryCode: string;
  url?: string;
  averageMonthlyProcessingVolume?: number;
  contactEnc: string;
}

export interface BusinessContact {
  addressLine1: string;
  addressLine2?: string;
  city: string;
  zipCode?: string;
  businessZipCode: string;
  email?: string;
  phoneNumber?: string;
}

@Entity({ name: 'business_profiles' })
export class BusinessProfileEntity {
  @PrimaryColumn('uuid', { name: 'account_id' })
  accountId: string;

  /** Plain: it is printed on the card (embossedBusinessName) at issue and replacement. */
  @Column('text', { name: 'business_name' })
  businessName: string;

  @Column('text', { name: 'business_type' })
  businessType: string;

  @Column('jsonb')
  data: BusinessProfileData;

  @Column('text', { name: 'business_tax_id_enc', nullable: true })
  businessTaxIdEnc: string | null;

  @Column('char', { name: 'business_tax_id_last4', length: 4, nullable: true })
  businessTaxIdLast4: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
