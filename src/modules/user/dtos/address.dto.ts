import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ADDRESS_PATTERN, ZIP_CODE_LENGTHS, ZIP_CODE_PATTERN } from '../../../common/validation/characters';
import { isoCountry, uspsState } from '../../../common/validation/codes';
import { FieldRules, length, matches, maxLength, oneOf, patternSource, stated, unstated } from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

export const ADDRESS_TYPES = ['home', 'business', 'mailing'] as const;

/**
 * One postal address of a user (enrollment `addresses[]`, user update `address`). Length rows use
 * code 400, character rows code 640, subCodes 504 to 506 (SERVICE.md, user data validation).
 */
export class AddressDto {
  @FieldRules({}, oneOf(ADDRESS_TYPES))
  type: (typeof ADDRESS_TYPES)[number];

  @ApiPropertyOptional({ description: 'When no address is marked, the home address is the default (card shipment).' })
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;

  @FieldRules({}, length(2, 40, fails('ADDRESS_LINE1_LENGTH')), matches(ADDRESS_PATTERN, fails('ADDRESS_LINE1_CHARACTERS')), unstated(IsString()))
  addressLine1: string;

  @IsOptional()
  @FieldRules(
    { required: false },
    maxLength(40, fails('ADDRESS_LINE2_LENGTH')),
    matches(ADDRESS_PATTERN, fails('ADDRESS_LINE2_CHARACTERS')),
    unstated(IsString()),
  )
  addressLine2?: string;

  @FieldRules({}, length(1, 25, fails('CITY_LENGTH')), matches(ADDRESS_PATTERN, fails('CITY_CHARACTERS')), unstated(IsString()))
  city: string;

  @FieldRules({ description: 'USPS two-letter state code', example: 'TX' }, uspsState(fails('INVALID_STATE')))
  state: string;

  @FieldRules(
    { description: '12345 or 12345-6789', example: '78701' },
    // The pattern is the check; the lengths it admits are stated too, for clients that read only those.
    stated(Matches(ZIP_CODE_PATTERN, fails('INVALID_ZIP')), {
      pattern: patternSource(ZIP_CODE_PATTERN),
      minLength: Math.min(...ZIP_CODE_LENGTHS),
      maxLength: Math.max(...ZIP_CODE_LENGTHS),
    }),
    unstated(IsString()),
  )
  zipCode: string;

  @IsOptional()
  @FieldRules({ required: false, description: 'An assigned ISO 3166-1 alpha-2 or alpha-3 code, upper case; US when omitted', example: 'US' }, isoCountry())
  countryCode?: string;
}
