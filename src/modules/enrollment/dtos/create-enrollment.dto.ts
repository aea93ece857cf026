import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiObjectOrJwe } from '../../../common/openapi/object-or-jwe';
import { IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength, ValidateBy } from 'class-validator';
import { code as currencyByCode } from 'currency-codes';
import { REQUEST_ID_PATTERN } from '../../../common/context/request-context';
import { fails, NestedObject } from '../../../common/validation/validation';
import { EnrollmentUserDataDto } from './enrollment-user-data.dto';

export const ACCOUNT_TYPES = ['consumer', 'business'] as const;

/** An ISO 4217 code (upper case), from the maintained currency-codes data. */
export function isIsoCurrency(value: unknown): boolean {
  return typeof value === 'string' && /^[A-Z]{3}$/.test(value) && currencyByCode(value) !== undefined;
}

/** POST /v1/programs/{programCode}/enrollments */
@ApiExtraModels(EnrollmentUserDataDto)
export class CreateEnrollmentDto {
  @ApiProperty({ description: 'Idempotency key: 1 to 64 characters of [A-Za-z0-9._-]', example: 'req-20261121-0001' })
  @Matches(REQUEST_ID_PATTERN)
  @IsString()
  requestId: string;

  @ApiPropertyOptional({ enum: ACCOUNT_TYPES, default: 'consumer' })
  @IsOptional()
  @IsIn(ACCOUNT_TYPES)
  accountType?: (typeof ACCOUNT_TYPES)[number];

  @ApiProperty({ description: 'ISO 8601 date-time; must be within 720 hours of submission, before or after.', example: '2026-11-21T10:00:00Z' })
  @IsISO8601({ strict: true, strictSeparator: true })
  @IsString()
  termsAcceptanceDateTime: string;

  @ApiPropertyOptional({ description: "ISO 4217 code valid for the program; the program's first currency when omitted.", example: 'USD' })
  @IsOptional()
  @ValidateBy(
    { name: 'isIsoCurrency', validator: { validate: isIsoCurrency, defaultMessage: () => 'currency must be an ISO 4217 code' } },
    fails('INVALID_CURRENCY'),
  )
  currency?: string;

  @ApiPropertyOptional({ description: 'From POST /v1/kycGates/scanCapture; only for a Matricula enrollment.' })
  @IsOptional()
  @MaxLength(64, fails('INVALID_ONBOARDING_ID'))
  @IsString()
  onboardingID?: string;

  @ApiObjectOrJwe(
    EnrollmentUserDataDto,
    'The user: a JSON object, or (partners configured for encryption) that object as a compact JWE string (ECDH-ES/A256GCM, not compressed).',
  )
  @NestedObject(() => EnrollmentUserDataDto)
  encryptedUserData: EnrollmentUserDataDto;
}
