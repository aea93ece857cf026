import { ApiExtraModels } from '@nestjs/swagger';
import { ApiObjectOrJwe } from '../../../common/openapi/object-or-jwe';
import { IsISO8601, IsOptional, IsString, ValidateBy } from 'class-validator';
import { code as currencyByCode } from 'currency-codes';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { FieldRules, length, matches, oneOf, patternSource, stated, unstated } from '../../../common/validation/field-rules';
import { fails, NestedObject } from '../../../common/validation/validation';
import { EnrollmentUserDataDto } from './enrollment-user-data.dto';

export const ACCOUNT_TYPES = ['consumer', 'business'] as const;

/** The shape of a currency code; whether it is assigned is the currency-codes data's. */
export const CURRENCY_SHAPE = /^[A-Z]{3}$/;

/** An ISO 4217 code (upper case), from the maintained currency-codes data. */
export function isIsoCurrency(value: unknown): boolean {
  return typeof value === 'string' && CURRENCY_SHAPE.test(value) && currencyByCode(value) !== undefined;
}

/** POST /v1/programs/{programCode}/enrollments */
@ApiExtraModels(EnrollmentUserDataDto)
export class CreateEnrollmentDto {
  @FieldRules(
    { description: 'Idempotency key: 1 to 64 characters of [A-Za-z0-9._-]', example: 'req-20261121-0001' },
    matches(REQUEST_ID_PATTERN),
    unstated(IsString()),
  )
  requestId: string;

  @IsOptional()
  @FieldRules({ required: false, default: 'consumer' }, oneOf(ACCOUNT_TYPES))
  accountType?: (typeof ACCOUNT_TYPES)[number];

  @FieldRules(
    {
      description:
        'A date-time (RFC 3339 as ISO 8601 writes it, with an upper-case T; an offset is converted to UTC) within 720 hours of submission, before or after. ' +
        'The service also takes the stricter ISO 8601 forms a date-time does not cover: without offset (read as UTC) or a date alone (its midnight UTC).',
      example: '2026-11-21T10:00:00Z',
    },
    stated(IsISO8601({ strict: true, strictSeparator: true }), { format: 'date-time' }),
    unstated(IsString()),
  )
  termsAcceptanceDateTime: string;

  @IsOptional()
  @FieldRules(
    {
      required: false,
      description: "An assigned ISO 4217 code, upper case, valid for the program; the program's first currency when omitted.",
      example: 'USD',
    },
    stated(
      ValidateBy(
        { name: 'isIsoCurrency', validator: { validate: isIsoCurrency, defaultMessage: () => 'currency must be an ISO 4217 code' } },
        fails('INVALID_CURRENCY'),
      ),
      { pattern: patternSource(CURRENCY_SHAPE) },
    ),
  )
  currency?: string;

  @IsOptional()
  @FieldRules(
    { required: false, description: 'From POST /v1/kycGates/scanCapture; only for a Matricula enrollment.' },
    // Empty is no scan at all, not "no onboardingID": a Matricula enrollment is one that sends it (CONTRACT section 9: 660/0).
    length(1, 64, fails('INVALID_ONBOARDING_ID')),
    unstated(IsString()),
  )
  onboardingID?: string;

  @ApiObjectOrJwe(
    EnrollmentUserDataDto,
    'The user: a JSON object, or (partners configured for encryption) that object as a compact JWE string (ECDH-ES/A256GCM, not compressed).',
  )
  @NestedObject(() => EnrollmentUserDataDto)
  encryptedUserData: EnrollmentUserDataDto;
}
