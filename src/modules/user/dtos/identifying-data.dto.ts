import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, ValidateBy } from 'class-validator';
import { fails } from '../../../common/validation/validation';

/** YYYY-MM-DD that names a real calendar day, not in the future. */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value && date.getTime() <= Date.now();
}

/**
 * Who the user is. At most one of ssn, ssnSuffix (alias last4SSN) and matriculaId; the conflicts are
 * checked by the enrollment rules (630), formats here (700, 760).
 */
export class IdentifyingDataDto {
  @ApiProperty({ example: '1990-04-01', description: 'YYYY-MM-DD' })
  @ValidateBy({ name: 'isCalendarDate', validator: { validate: isCalendarDate, defaultMessage: () => 'dateOfBirth must be YYYY-MM-DD' } }, fails('DOB_FORMAT'))
  dateOfBirth: string;

  @ApiPropertyOptional({ description: '9 digits; a value starting with 9 is an ITIN and counts as an ITIN for limits' })
  @IsOptional()
  @Matches(/^\d{9}$/, fails('INVALID_SSN'))
  @IsString()
  ssn?: string;

  @ApiPropertyOptional({ description: 'Last four digits of the SSN' })
  @IsOptional()
  @Matches(/^\d{4}$/, fails('INVALID_SSN'))
  @IsString()
  ssnSuffix?: string;

  @ApiPropertyOptional({ description: 'Alias of ssnSuffix' })
  @IsOptional()
  @Matches(/^\d{4}$/, fails('INVALID_SSN'))
  @IsString()
  last4SSN?: string;

  @ApiPropertyOptional({ description: 'Matricula Consular number; must equal the number of the scan capture named by onboardingID' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9]{4,20}$/)
  @IsString()
  matriculaId?: string;
}
