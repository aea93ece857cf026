import { IsOptional } from 'class-validator';
import {
  AddressLine1Rules,
  AddressLine2Rules,
  BusinessCountryRules,
  BusinessEmailRules,
  BusinessIndustryRules,
  BusinessNameRules,
  BusinessPhoneRules,
  BusinessStateRules,
  BusinessTaxIdRules,
  BusinessType,
  BusinessTypeRules,
  CityRules,
  ProcessingVolumeRules,
  UrlRules,
  ZipRules,
} from './business-data.rules';

/**
 * `encryptedUserData.businessData` of an enrollment (CONTRACT.md section 6): every KYB rule, the
 * required fields answering 400/200/0 "<property name> is required".
 */
export class BusinessDataDto {
  @BusinessNameRules() businessName: string;
  @BusinessTypeRules('INVALID_BUSINESS_TYPE_ENROLLMENT') businessType: BusinessType;
  @BusinessTaxIdRules() businessTaxID: string;
  @BusinessIndustryRules() businessIndustry: string;
  @AddressLine1Rules() addressLine1: string;
  @IsOptional() @AddressLine2Rules() addressLine2?: string | null;
  @CityRules() city: string;
  @BusinessStateRules() businessState: string;
  @ZipRules(true) businessZipCode: string;
  @IsOptional() @ZipRules(false) zipCode?: string | null;
  @BusinessCountryRules() businessCountryCode: string;
  @IsOptional() @UrlRules() url?: string | null;
  @IsOptional() @BusinessEmailRules() email?: string | null;
  @IsOptional() @ProcessingVolumeRules() averageMonthlyProcessingVolume?: number | null;
  @IsOptional() @BusinessPhoneRules() phoneNumber?: string | null;
}
