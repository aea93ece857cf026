import { IsString } from 'class-validator';
import { EMAIL_ADDRESS_DESCRIPTION, emailAddress, FieldRules, maxLength, unstated } from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

export class EmailDto {
  @FieldRules(
    { example: 'jose@example.com', description: EMAIL_ADDRESS_DESCRIPTION },
    emailAddress(fails('INVALID_EMAIL')),
    maxLength(254, fails('INVALID_EMAIL')),
    unstated(IsString()),
  )
  emailAddress: string;
}
