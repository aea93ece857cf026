import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsString, MaxLength } from 'class-validator';
import { fails } from '../../../common/validation/validation';

export class EmailDto {
  @ApiProperty({ maxLength: 254, example: 'jose@example.com' })
  @IsEmail({}, fails('INVALID_EMAIL'))
  @MaxLength(254, fails('INVALID_EMAIL'))
  @IsString()
  emailAddress: string;
}
