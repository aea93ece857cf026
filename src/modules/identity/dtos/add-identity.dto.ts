import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import { fails } from '../../../common/validation/validation';

/** An ITIN: 9 digits, numeric, starting with 9 (SERVICE.md Identity). */
export const ITIN_PATTERN = /^9[0-9]{8}$/;

/** POST /v1/accounts/{accountIdentifier}/users/{userIdentifier}/identity */
export class AddIdentityDto {
  @ApiProperty({ example: '912345678', description: '9 digits starting with 9; otherwise 400/761/0 Invalid ITIN' })
  @Matches(ITIN_PATTERN, fails('INVALID_ITIN'))
  @IsString(fails('INVALID_ITIN'))
  itin: string;
}
