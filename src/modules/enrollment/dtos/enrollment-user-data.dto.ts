import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { NestedObject } from '../../../common/validation/validation';
import { BusinessDataDto } from '../../business-profile/dtos/business-data.dto';
import { AddressDto } from '../../user/dtos/address.dto';
import { EmailDto } from '../../user/dtos/email.dto';
import { IdentifyingDataDto } from '../../user/dtos/identifying-data.dto';
import { PhoneDto } from '../../user/dtos/phone.dto';
import { UserNamesDto } from '../../user/dtos/user-names.dto';

/**
 * `encryptedUserData` of an enrollment (a JSON object, or a JWE string that the JWE body
 * interceptor has already opened). Cross-field rules (address types, defaults, conflicts) are
 * checked by EnrollmentRequestRules once these field rules pass.
 */
export class EnrollmentUserDataDto extends UserNamesDto {
  @ApiProperty({ type: IdentifyingDataDto })
  @NestedObject(() => IdentifyingDataDto)
  identifyingData: IdentifyingDataDto;

  @ApiPropertyOptional({ type: [AddressDto], description: 'A home address is required; types unique; at most one default.' })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => AddressDto)
  @IsObject({ each: true })
  @IsArray()
  addresses?: AddressDto[];

  @ApiPropertyOptional({ type: [PhoneDto], description: 'Required when the program requires KYC; phone types unique.' })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => PhoneDto)
  @IsObject({ each: true })
  @IsArray()
  phoneNumbers?: PhoneDto[];

  @ApiPropertyOptional({ type: EmailDto })
  @IsOptional()
  @NestedObject(() => EmailDto)
  email?: EmailDto;

  @ApiPropertyOptional({
    type: BusinessDataDto,
    description: 'Required when accountType is business (else 400/200/0 "businessData is required"); refused for any other accountType (400/630/0).',
  })
  @IsOptional()
  @NestedObject(() => BusinessDataDto)
  businessData?: BusinessDataDto;
}
