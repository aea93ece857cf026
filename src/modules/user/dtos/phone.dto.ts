import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { fails } from '../../../common/validation/validation';

export const PHONE_TYPES = ['mobile', 'home', 'work', 'business'] as const;

/** Ten-digit North American number, digits only. */
export const PHONE_PATTERN = /^\d{10}$/;

/** One phone of a user (enrollment `phoneNumbers[]`, user update `phoneNumber`). */
export class PhoneDto {
  @ApiProperty({ enum: PHONE_TYPES })
  @IsIn(PHONE_TYPES)
  phoneType: (typeof PHONE_TYPES)[number];

  @ApiProperty({ description: 'Ten digits, no punctuation', example: '5125550100' })
  @Matches(PHONE_PATTERN, fails('INVALID_PHONE'))
  @IsString()
  number: string;

  @ApiPropertyOptional({ description: 'The default phone is the one the phone limits count; the first phone when none is marked.' })
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;
}
