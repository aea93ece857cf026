import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { FieldRules, matches, oneOf, unstated } from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

export const PHONE_TYPES = ['mobile', 'home', 'work', 'business'] as const;

/** Ten-digit North American number, digits only. */
export const PHONE_PATTERN = /^\d{10}$/;

/** One phone of a user (enrollment `phoneNumbers[]`, user update `phoneNumber`). */
export class PhoneDto {
  @FieldRules({}, oneOf(PHONE_TYPES))
  phoneType: (typeof PHONE_TYPES)[number];

  @FieldRules({ description: 'Ten digits, no punctuation', example: '5125550100' }, matches(PHONE_PATTERN, fails('INVALID_PHONE')), unstated(IsString()))
  number: string;

  @ApiPropertyOptional({ description: 'The default phone is the one the phone limits count; the first phone when none is marked.' })
  @IsOptional()
  @IsBoolean()
  isDefault?: boolean;
}
