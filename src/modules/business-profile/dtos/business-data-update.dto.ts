import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, ValidateIf } from 'class-validator';
import { NestedObject } from '../../../common/validation/validation';
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

/** Validates a field only when it was sent; null on a required field then reads "... is required". */
const WhenSent = () =>
  applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    ApiPropertyOptional(),
  );

/** A field that enrollment also leaves optional: null clears it. */
const Clearable = () => applyDecorators(IsOptional(), ApiPropertyOptional({ nullable: true }));

/**
 * Any subset of the businessData fields, each with its enrollment rule. A field sent replaces the
 * stored one; an optional field sent as null is cleared; an omitted field is untouched.
 */
export class BusinessDataUpdateDto {
  @WhenSent() @BusinessNameRules() businessName?: string;
  @WhenSent() @BusinessTypeRules('INVALID_BUSINESS_TYPE') businessType?: BusinessType;
  @WhenSent() @BusinessTaxIdRules() businessTaxID?: string;
  @WhenSent() @BusinessIndustryRules() businessIndustry?: string;
  @WhenSent() @AddressLine1Rules() addressLine1?: string;
  @Clearable() @AddressLine2Rules() addressLine2?: string | null;
  @WhenSent() @CityRules() city?: string;
  @WhenSent() @BusinessStateRules() businessState?: string;
  @WhenSent() @ZipRules(false) businessZipCode?: string;
  @Clearable() @ZipRules(false) zipCode?: string | null;
  @WhenSent() @BusinessCountryRules() businessCountryCode?: string;
  @Clearable() @UrlRules() url?: string | null;
  @Clearable() @BusinessEmailRules() email?: string | null;
  @Clearable() @ProcessingVolumeRules() averageMonthlyProcessingVolume?: number | null;
  @Clearable() @BusinessPhoneRules() phoneNumber?: string | null;
}

export class UpdateBusinessProfileRequestDto {
  @ApiProperty({ type: BusinessDataUpdateDto })
  @NestedObject(() => BusinessDataUpdateDto)
  businessData: BusinessDataUpdateDto;
}
