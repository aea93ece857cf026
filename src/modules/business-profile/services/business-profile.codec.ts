import { Injectable } from '@nestjs/common';
import { FieldCipher } from '../../../infrastructure/crypto/field-cipher';
import { BusinessDataDto } from '../dtos/business-data.dto';
import { BusinessContact, BusinessProfileEntity } from '../entities/business-profile.entity';

/** businessData as the API shows it: businessTaxID reduced to its last 4 digits. */
export type BusinessDataView = Omit<BusinessDataDto, 'businessTaxID'> & { businessTaxID?: string };

/** Everything that can be stored, before encryption. */
export type BusinessDataFields = { [K in keyof BusinessDataDto]: BusinessDataDto[K] };

const CONTACT_KEYS = ['addressLine1', 'addressLine2', 'city', 'zipCode', 'businessZipCode', 'email', 'phoneNumber'] as const;

/**
 * Moves businessData between its API form and its row: which fields are encrypted, under which
 * context (bound to the account, so a value copied to another row does not decrypt).
 */
@Injectable()
export class BusinessProfileCodec {
  constructor(private readonly cipher: FieldCipher) {}

  /** The stored fields in clear, except businessTaxID (never decrypted for display). */
  read(entity: BusinessProfileEntity): Omit<BusinessDataFields, 'businessTaxID'> {
    const contact = this.cipher.decryptJson<BusinessContact>(entity.data.contactEnc, this.contactContext(entity.accountId));
    return compact({
      businessName: entity.businessName,
      businessType: entity.businessType as BusinessDataDto['businessType'],
      businessIndustry: entity.data.businessIndustry,
      addressLine1: contact.addressLine1,
      addressLine2: contact.addressLine2,
      city: contact.city,
      businessState: entity.data.businessState,
      businessZipCode: contact.businessZipCode,
      zipCode: contact.zipCode,
      businessCountryCode: entity.data.businessCountryCode,
      url: entity.data.url,
      email: contact.email,
      averageMonthlyProcessingVolume: entity.data.averageMonthlyProcessingVolume,
      phoneNumber: contact.phoneNumber,
    });
  }

  view(entity: BusinessProfileEntity): BusinessDataView {
    const fields = this.read(entity);
    return entity.businessTaxIdLast4 ? { ...fields, businessTaxID: entity.businessTaxIdLast4 } : fields;
  }

  /** Writes every field onto the entity; businessTaxID only when given (it cannot be read back). */
  write(entity: BusinessProfileEntity, fields: Omit<BusinessDataFields, 'businessTaxID'> & { businessTaxID?: string }): void {
    const contact = compact(Object.fromEntries(CONTACT_KEYS.map((key) => [key, fields[key]]))) as unknown as BusinessContact;
    entity.businessName = fields.businessName;
    entity.businessType = fields.businessType;
    entity.data = compact({
      businessIndustry: fields.businessIndustry,
      businessState: fields.businessState.toUpperCase(),
      businessCountryCode: fields.businessCountryCode.toUpperCase(),
      url: fields.url ?? undefined,
      averageMonthlyProcessingVolume: fields.averageMonthlyProcessingVolume ?? undefined,
      contactEnc: this.cipher.encryptJson(contact, this.contactContext(entity.accountId)),
    });
    if (fields.businessTaxID !== undefined) {
      entity.businessTaxIdEnc = this.cipher.encrypt(fields.businessTaxID, `business_profiles.business_tax_id:${entity.accountId}`);
      entity.businessTaxIdLast4 = fields.businessTaxID.slice(-4);
    }
  }

  private contactContext(accountId: string): string {
    return `business_profiles.contact:${accountId}`;
  }
}

/** Drops absent and cleared (null) values so views and rows carry only what is set. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}
