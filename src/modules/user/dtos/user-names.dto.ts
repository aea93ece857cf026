import { IsOptional, IsString } from 'class-validator';
import { NAME_PATTERN } from '../../../common/validation/characters';
import { FieldRules, length, matches, maxLength, minLength, unstated } from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

/** The names of a user (SERVICE.md user data validation: subCodes 501 to 503). */
export class UserNamesDto {
  @FieldRules(
    { example: 'José' },
    maxLength(35, fails('FIRST_NAME_LENGTH')),
    minLength(1, fails('FIRST_NAME_LENGTH')),
    matches(NAME_PATTERN, fails('FIRST_NAME_CHARACTERS')),
    unstated(IsString()),
  )
  firstName: string;

  @IsOptional()
  @FieldRules(
    { required: false, description: 'Invalid-character check only; an empty string has no letter and is refused (400/640/503)', example: 'A' },
    matches(NAME_PATTERN, fails('MIDDLE_NAME_CHARACTERS')),
    unstated(IsString()),
  )
  middleName?: string;

  @FieldRules({ example: 'Núñez' }, length(2, 35, fails('LAST_NAME_LENGTH')), matches(NAME_PATTERN, fails('LAST_NAME_CHARACTERS')), unstated(IsString()))
  lastName: string;
}
