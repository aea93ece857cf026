import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { ADDRESS_PATTERN, ZIP_CODE_PATTERN } from '../../../common/validation/characters';
import { IsIsoCountry, IsUspsState } from '../../../common/validation/codes';
import { fails } from '../../../common/validation/validation';

export const ADDRESS_TYPES = ['home', 'business', 'mailing'] as const;

/**
 * One postal address of a user (enrollment `addresses[]`, user update `address`). Length rows use
 * code 400, character rows code 640, subCodes 504 to 506 (SERVICE.md, user data validation).
 */
export class AddressDto {
  @ApiProperty({ enum: ADDRESS_TYPES })
  @IsIn(ADDRESS_TYPES)
  type: (typeof ADDRESS_TYPES)[number];

  @ApiPropertyOptional({ description: 'When no address is marked, the home address is the default (card shipment).' })
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;

  @ApiProperty({ minLength: 2, maxLength: 40 })
  @Length(2, 40, fails('ADDRESS_LINE1_LENGTH'))
  @Matches(ADDRESS_PATTERN, fails('ADDRESS_LINE1_CHARACTERS'))
  @IsString()
  addressLine1: string;

  @ApiPropertyOptional({ maxLength: 40 })
  @IsOptional()
  @MaxLength(40, fails('ADDRESS_LINE2_LENGTH'))
  @Matches(ADDRESS_PATTERN, fails('ADDRESS_LINE2_CHARACTERS'))
  @IsString()
  addressLine2?: string;

  @ApiProperty({ minLength: 1, maxLength: 25 })
  @Length(1, 25, fails('CITY_LENGTH'))
  @Matches(ADDRESS_PATTERN, fails('CITY_CHARACTERS'))
  @IsString()
  city: string;

  @ApiProperty({ description: 'USPS two-letter state code', example: 'TX' })
  @IsUspsState(fails('INVALID_STATE'))
  state: string;

  @ApiProperty({ description: '12345 or 12345-6789', example: '78701' })
  @Matches(ZIP_CODE_PATTERN, fails('INVALID_ZIP'))
  @IsString()
  zipCode: string;

  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2 or alpha-3; US when omitted', example: 'US' })
  @IsOptional()
  @IsIsoCountry()
  countryCode?: string;
}
