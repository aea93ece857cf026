import { IsNumber, IsString, IsUrl, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { ErrorKey } from '../../../common/errors/error-catalogue';
import { ADDRESS_PATTERN, ZIP_CODE_LENGTHS, ZIP_CODE_PATTERN } from '../../../common/validation/characters';
import { isoCountry, uspsState } from '../../../common/validation/codes';
import {
  EMAIL_ADDRESS_DESCRIPTION,
  emailAddress,
  NO_FORMAT_CHARACTERS,
  visibleCharacters,
  FieldRule,
  FieldRules as rules,
  length,
  matches,
  maxLength,
  oneOf,
  stated,
  unstated,
} from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

/** SERVICE.md's Business profile table. */
export const BUSINESS_TYPES = ['ConsumerProfileType', 'Individual', 'soleProp', 'llc', 'corp', 'partnership', 'nonprofit', 'SingleLLC', 'ProCorp'] as const;
export type BusinessType = (typeof BUSINESS_TYPES)[number];

/** The schema says the shortest to the longest; the pattern says which lengths between. */
function lengthIn(allowed: readonly number[], options: ValidationOptions): FieldRule {
  return stated(
    ValidateBy(
      {
        name: 'lengthIn',
        constraints: [...allowed],
        validator: {
          validate: (value: unknown) => typeof value === 'string' && allowed.includes(value.length),
          defaultMessage: (args) => `${args?.property ?? 'value'} must be ${allowed.join(' or ')} characters long`,
        },
      },
      options,
    ),
    { minLength: Math.min(...allowed), maxLength: Math.max(...allowed) },
  );
}

/** Digits only (tax id, industry code), as the schema pattern too. */
export const DIGITS_PATTERN = /^[0-9]+$/;

/** A business phone: 10 to 15 digits, optional leading +. */
export const BUSINESS_PHONE_PATTERN = /^\+?[0-9]{10,15}$/;

const address = (key: ErrorKey) => matches(ADDRESS_PATTERN, fails(key));

// Each text field's `unstated(IsString())`: a number, boolean or array there is 400/100/5 naming the field
// (README "Decisions"), not its length or format row, which judge text (validation.ts, VALUE_TYPE_CONSTRAINTS).

export const BusinessNameRules = () =>
  rules(
    { type: String, example: 'Núñez Tacos & Co.', description: 'Length 400/507, characters 640/507' },
    length(2, 100, fails('BUSINESS_NAME_LENGTH')),
    address('BUSINESS_NAME_CHARACTERS'),
    unstated(IsString()),
  );

export const BusinessTypeRules = (invalid: 'INVALID_BUSINESS_TYPE' | 'INVALID_BUSINESS_TYPE_ENROLLMENT') =>
  rules({ example: 'llc' }, oneOf(BUSINESS_TYPES, fails(invalid)));

export const BusinessTaxIdRules = () =>
  rules(
    { type: String, example: '123456789', description: '9 digits (EIN); stored encrypted, answered as its last 4 digits' },
    length(9, 9, fails('BUSINESS_FIELD_LENGTH')),
    matches(DIGITS_PATTERN, fails('INVALID_FIELD')),
    unstated(IsString()),
  );

export const BusinessIndustryRules = () =>
  rules(
    { type: String, example: '722513', description: 'NAICS code, 2 to 6 digits' },
    length(2, 6, fails('BUSINESS_FIELD_LENGTH')),
    matches(DIGITS_PATTERN, fails('INVALID_FIELD')),
    unstated(IsString()),
  );

export const AddressLine1Rules = () =>
  rules({ type: String, example: '100 Main St' }, length(2, 40, fails('ADDRESS_LINE1_LENGTH')), address('ADDRESS_LINE1_CHARACTERS'), unstated(IsString()));

export const AddressLine2Rules = () =>
  rules(
    { type: String, example: 'Suite 4', required: false },
    maxLength(40, fails('ADDRESS_LINE2_LENGTH')),
    address('ADDRESS_LINE2_CHARACTERS'),
    unstated(IsString()),
  );

export const CityRules = () =>
  rules({ type: String, example: 'Austin' }, length(1, 25, fails('CITY_LENGTH')), address('CITY_CHARACTERS'), unstated(IsString()));

export const BusinessStateRules = () =>
  rules(
    { type: String, example: 'TX', description: '2-letter USPS code' },
    length(2, 2, fails('BUSINESS_FIELD_LENGTH')),
    uspsState(fails('INVALID_STATE')),
    unstated(IsString()),
  );

/** businessZipCode and the business address's zipCode: SERVICE.md's KYB table has one zip row for both (350, "Invalid Business Zip Code"). */
export const ZipRules = (required: boolean) =>
  rules(
    { type: String, example: '78701', description: '12345 or 12345-6789', required },
    lengthIn(ZIP_CODE_LENGTHS, fails('BUSINESS_FIELD_LENGTH')),
    matches(ZIP_CODE_PATTERN, fails('INVALID_BUSINESS_ZIP')),
    unstated(IsString()),
  );

export const BusinessCountryRules = () =>
  rules(
    { type: String, example: 'US', description: 'An assigned ISO 3166-1 alpha-2 or alpha-3 code, upper case' },
    isoCountry(fails('INVALID_BUSINESS_COUNTRY')),
    unstated(IsString()),
  );

export const UrlRules = () =>
  rules(
    {
      type: String,
      example: 'https://tacos.example.com',
      required: false,
      description: `An http or https URL whose host is a name with a top-level domain or an IP address; the scheme may be left out (tacos.example.com); ${NO_FORMAT_CHARACTERS}`,
    },
    unstated(IsUrl({ protocols: ['http', 'https'], require_tld: true }, fails('INVALID_URL'))),
    visibleCharacters(fails('INVALID_URL')),
    maxLength(2048, fails('INVALID_URL')),
    unstated(IsString()),
  );

export const BusinessEmailRules = () =>
  rules(
    { type: String, example: 'owner@tacos.example.com', required: false, description: EMAIL_ADDRESS_DESCRIPTION },
    emailAddress(fails('INVALID_BUSINESS_EMAIL')),
    maxLength(254, fails('INVALID_BUSINESS_EMAIL')),
    unstated(IsString()),
  );

export const ProcessingVolumeRules = () =>
  rules(
    { type: Number, example: 25000, required: false },
    unstated(IsNumber({ allowNaN: false, allowInfinity: false }, fails('INVALID_PROCESSING_VOLUME'))),
    stated(Min(0, fails('INVALID_PROCESSING_VOLUME')), { minimum: 0 }),
  );

export const BusinessPhoneRules = () =>
  rules(
    { type: String, example: '5125550100', description: '10 to 15 digits, optional leading +', required: false },
    unstated(IsString(fails('INVALID_PHONE'))),
    matches(BUSINESS_PHONE_PATTERN, fails('INVALID_PHONE')),
  );
