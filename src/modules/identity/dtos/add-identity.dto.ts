import { IsString } from 'class-validator';
import { FieldRules, matches, unstated } from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

/** An ITIN: 9 digits, numeric, starting with 9 (SERVICE.md Identity). */
export const ITIN_PATTERN = /^9[0-9]{8}$/;

/** POST /v1/accounts/{accountIdentifier}/users/{userIdentifier}/identity */
export class AddIdentityDto {
  @FieldRules(
    { example: '912345678', description: '9 digits starting with 9; otherwise 400/761/0 Invalid ITIN' },
    matches(ITIN_PATTERN, fails('INVALID_ITIN')),
    unstated(IsString(fails('INVALID_ITIN'))),
  )
  itin: string;
}
