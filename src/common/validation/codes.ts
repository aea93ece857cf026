import { ValidateBy, type ValidationOptions } from 'class-validator';
import * as countries from 'i18n-iso-countries';
import { USPS_STATE_CODES } from './characters';
import { FieldRule, patternSource, stated } from './field-rules';

/**
 * The one validator of each code a partner sends (user addresses, business profiles, scan
 * captures). Codes are upper case, as ISO 3166 and USPS publish them: `tx` or `us` is refused,
 * not silently normalised, so what is stored is what was sent.
 */

/** The shape of a country code; whether it is assigned is the i18n-iso-countries data's. */
export const ISO_COUNTRY_SHAPE = /^[A-Z]{2,3}$/;

/** ISO 3166-1 alpha-2 or alpha-3 (numeric codes are not accepted), from the maintained i18n-iso-countries data. */
export function isIsoCountry(value: unknown): boolean {
  return typeof value === 'string' && ISO_COUNTRY_SHAPE.test(value) && countries.isValid(value);
}

/** A USPS two-letter code: states, DC, territories and military post offices. */
export function isUspsState(value: unknown): boolean {
  return typeof value === 'string' && USPS_STATE_CODES.has(value);
}

export const IsIsoCountry = (options?: ValidationOptions) =>
  ValidateBy(
    { name: 'isIsoCountry', validator: { validate: isIsoCountry, defaultMessage: () => 'must be ISO 3166-1 alpha-2 or alpha-3, upper case' } },
    options,
  );

export const IsUspsState = (options?: ValidationOptions) =>
  ValidateBy({ name: 'isUspsState', validator: { validate: isUspsState, defaultMessage: () => 'must be a USPS state code, upper case' } }, options);

/** The schema states the code's shape; that it is an assigned code is the field description's to say. */
export const isoCountry = (options?: ValidationOptions): FieldRule => stated(IsIsoCountry(options), { pattern: patternSource(ISO_COUNTRY_SHAPE) });

/** A closed list: the schema states it whole. */
export const uspsState = (options?: ValidationOptions): FieldRule => stated(IsUspsState(options), { enum: [...USPS_STATE_CODES] });
