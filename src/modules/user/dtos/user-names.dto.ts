import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length, Matches, MaxLength, MinLength } from 'class-validator';
import { NAME_PATTERN } from '../../../common/validation/characters';
import { fails } from '../../../common/validation/validation';

/** The names of a user (SERVICE.md user data validation: subCodes 501 to 503). */
export class UserNamesDto {
  @ApiProperty({ maxLength: 35, example: 'José' })
  @MaxLength(35, fails('FIRST_NAME_LENGTH'))
  @MinLength(1, fails('FIRST_NAME_LENGTH'))
  @Matches(NAME_PATTERN, fails('FIRST_NAME_CHARACTERS'))
  @IsString()
  firstName: string;

  @ApiPropertyOptional({ description: 'Invalid-character check only', example: 'A' })
  @IsOptional()
  @Matches(NAME_PATTERN, fails('MIDDLE_NAME_CHARACTERS'))
  @IsString()
  middleName?: string;

  @ApiProperty({ minLength: 2, maxLength: 35, example: 'Núñez' })
  @Length(2, 35, fails('LAST_NAME_LENGTH'))
  @Matches(NAME_PATTERN, fails('LAST_NAME_CHARACTERS'))
  @IsString()
  lastName: string;
}
