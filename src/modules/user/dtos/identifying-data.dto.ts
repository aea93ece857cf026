import { IsOptional, IsString, ValidateBy } from 'class-validator';
import { FieldRules, matches, patternSource, stated, unstated } from '../../../common/validation/field-rules';
import { fails } from '../../../common/validation/validation';

/** The shape of a date of birth; that the day exists and is not in the future is isCalendarDate's. */
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** YYYY-MM-DD that names a real calendar day, not in the future. */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !DATE_PATTERN.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value && date.getTime() <= Date.now();
}

export const SSN_PATTERN = /^\d{9}$/;
export const SSN_SUFFIX_PATTERN = /^\d{4}$/;

/** A Matricula Consular number (here and in the scan capture it must equal): 4 to 20 letters or digits. */
export const MATRICULA_NUMBER_PATTERN = /^[A-Za-z0-9]{4,20}$/;

/**
 * Who the user is. At most one of ssn, ssnSuffix (alias last4SSN) and matriculaId; the conflicts are
 * checked by the enrollment rules (630), formats here (700, 760).
 */
export class IdentifyingDataDto {
  @FieldRules(
    { example: '1990-04-01', description: 'YYYY-MM-DD, a day that exists (format date) and is not in the future' },
    stated(
      ValidateBy(
        { name: 'isCalendarDate', validator: { validate: isCalendarDate, defaultMessage: () => 'dateOfBirth must be YYYY-MM-DD' } },
        fails('DOB_FORMAT'),
      ),
      { format: 'date', pattern: patternSource(DATE_PATTERN) },
    ),
  )
  dateOfBirth: string;

  @IsOptional()
  @FieldRules(
    { required: false, description: '9 digits; a value starting with 9 is an ITIN and counts as an ITIN for limits' },
    matches(SSN_PATTERN, fails('INVALID_SSN')),
    unstated(IsString()),
  )
  ssn?: string;

  @IsOptional()
  @FieldRules({ required: false, description: 'Last four digits of the SSN' }, matches(SSN_SUFFIX_PATTERN, fails('INVALID_SSN')), unstated(IsString()))
  ssnSuffix?: string;

  @IsOptional()
  @FieldRules({ required: false, description: 'Alias of ssnSuffix' }, matches(SSN_SUFFIX_PATTERN, fails('INVALID_SSN')), unstated(IsString()))
  last4SSN?: string;

  @IsOptional()
  @FieldRules(
    { required: false, description: 'Matricula Consular number; must equal the number of the scan capture named by onboardingID' },
    matches(MATRICULA_NUMBER_PATTERN),
    unstated(IsString()),
  )
  matriculaId?: string;
}
