import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { IsEmail, IsIn, IsNumber, IsString, IsUrl, Length, Matches, MaxLength, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { ErrorKey } from '../../../common/errors/error-catalogue';
import { ADDRESS_PATTERN, ZIP_CODE_PATTERN } from '../../../common/validation/characters';
import { isIsoCountry, isUspsState } from '../../../common/validation/codes';
import { fails } from '../../../common/validation/validation';

/** SERVICE.md's Business profile table. */
export const BUSINESS_TYPES = ['ConsumerProfileType', 'Individual', 'soleProp', 'llc', 'corp', 'partnership', 'nonprofit', 'SingleLLC', 'ProCorp'] as const;
export type BusinessType = (typeof BUSINESS_TYPES)[number];

/**
 * Decorators in reading order: the first one listed governs when several fail, like native
 * stacking (the validation pipe takes the top-most keyed constraint, i.e. the last registered).
 */
function rules(api: ApiPropertyOptions, ...decorators: PropertyDecorator[]): PropertyDecorator {
  return applyDecorators(ApiProperty(api), ...[...decorators].reverse());
}

function lengthIn(allowed: number[], options: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'lengthIn',
      constraints: allowed,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && allowed.includes(value.length),
        defaultMessage: (args) => `${args?.property ?? 'value'} must be ${allowed.join(' or ')} characters long`,
      },
    },
    options,
  );
}

function predicate(name: string, check: (value: unknown) => boolean, options: ValidationOptions): PropertyDecorator {
  // A non-empty message matters: class-validator attaches the context (our catalogue key) only then.
  return ValidateBy({ name, validator: { validate: check, defaultMessage: (args) => `${args?.property ?? 'value'} is invalid` } }, options);
}

const address = (key: ErrorKey) => Matches(ADDRESS_PATTERN, fails(key));

export const BusinessNameRules = () =>
  rules(
    { type: String, example: 'Núñez Tacos & Co.', minLength: 2, maxLength: 100, description: 'Length 400/507, characters 640/507' },
    Length(2, 100, fails('BUSINESS_NAME_LENGTH')),
    address('BUSINESS_NAME_CHARACTERS'),
  );

export const BusinessTypeRules = (invalid: 'INVALID_BUSINESS_TYPE' | 'INVALID_BUSINESS_TYPE_ENROLLMENT') =>
  rules({ enum: BUSINESS_TYPES, example: 'llc' }, IsIn(BUSINESS_TYPES, fails(invalid)));

export const BusinessTaxIdRules = () =>
  rules(
    { type: String, example: '123456789', description: '9 digits (EIN); stored encrypted, answered as its last 4 digits' },
    Length(9, 9, fails('BUSINESS_FIELD_LENGTH')),
    Matches(/^[0-9]+$/, fails('INVALID_FIELD')),
  );

export const BusinessIndustryRules = () =>
  rules(
    { type: String, example: '722513', description: 'NAICS code, 2 to 6 digits' },
    Length(2, 6, fails('BUSINESS_FIELD_LENGTH')),
    Matches(/^[0-9]+$/, fails('INVALID_FIELD')),
  );

export const AddressLine1Rules = () =>
  rules(
    { type: String, example: '100 Main St', minLength: 2, maxLength: 40 },
    Length(2, 40, fails('ADDRESS_LINE1_LENGTH')),
    address('ADDRESS_LINE1_CHARACTERS'),
  );

export const AddressLine2Rules = () =>
  rules(
    { type: String, example: 'Suite 4', maxLength: 40, required: false },
    MaxLength(40, fails('ADDRESS_LINE2_LENGTH')),
    address('ADDRESS_LINE2_CHARACTERS'),
  );

export const CityRules = () =>
  rules({ type: String, example: 'Austin', minLength: 1, maxLength: 25 }, Length(1, 25, fails('CITY_LENGTH')), address('CITY_CHARACTERS'));

export const BusinessStateRules = () =>
  rules(
    { type: String, example: 'TX', description: '2-letter USPS code' },
    Length(2, 2, fails('BUSINESS_FIELD_LENGTH')),
    predicate('isUspsState', isUspsState, fails('INVALID_STATE')),
  );

/** businessZipCode and the business address's zipCode: SERVICE.md's KYB table has one zip row for both (350, "Invalid Business Zip Code"). */
export const ZipRules = (required: boolean) =>
  rules(
    { type: String, example: '78701', description: '12345 or 12345-6789', required },
    lengthIn([5, 10], fails('BUSINESS_FIELD_LENGTH')),
    Matches(ZIP_CODE_PATTERN, fails('INVALID_BUSINESS_ZIP')),
  );

export const BusinessCountryRules = () =>
  rules(
    { type: String, example: 'US', description: 'ISO 3166-1 alpha-2 or alpha-3' },
    predicate('isIsoCountry', isIsoCountry, fails('INVALID_BUSINESS_COUNTRY')),
  );

export const UrlRules = () =>
  rules(
    { type: String, example: 'https://tacos.example.com', required: false },
    IsUrl({ protocols: ['http', 'https'], require_tld: true }, fails('INVALID_URL')),
    MaxLength(2048, fails('INVALID_URL')),
  );

export const BusinessEmailRules = () =>
  rules(
    { type: String, example: 'owner@tacos.example.com', required: false },
    IsEmail({}, fails('INVALID_BUSINESS_EMAIL')),
    MaxLength(254, fails('INVALID_BUSINESS_EMAIL')),
  );

export const ProcessingVolumeRules = () =>
  rules(
    { type: Number, example: 25000, minimum: 0, required: false },
    IsNumber({ allowNaN: false, allowInfinity: false }, fails('INVALID_PROCESSING_VOLUME')),
    Min(0, fails('INVALID_PROCESSING_VOLUME')),
  );

export const BusinessPhoneRules = () =>
  rules(
    { type: String, example: '5125550100', description: '10 to 15 digits, optional leading +', required: false },
    IsString(fails('INVALID_PHONE')),
    Matches(/^\+?[0-9]{10,15}$/, fails('INVALID_PHONE')),
  );
