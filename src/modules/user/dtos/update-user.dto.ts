import { ApiExtraModels, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiObjectOrJwe } from '../../../common/openapi/object-or-jwe';
import { IsOptional } from 'class-validator';
import { NestedObject } from '../../../common/validation/validation';
import { AddressDto } from './address.dto';
import { EmailDto } from './email.dto';
import { PhoneDto } from './phone.dto';

/**
 * The parts of a user a partner may change (SERVICE.md user update rules 1 to 6). Each is
 * optional: an excluded object is neither updated nor created. Names and identity are not here.
 */
export class UpdateUserDataDto {
  @ApiPropertyOptional({
    type: AddressDto,
    description: 'Updates the address of the same type, or adds one of a new type. isDefault true makes it the default (home or business only).',
  })
  @IsOptional()
  @NestedObject(() => AddressDto)
  address?: AddressDto;

  @ApiPropertyOptional({ type: EmailDto })
  @IsOptional()
  @NestedObject(() => EmailDto)
  email?: EmailDto;

  @ApiPropertyOptional({
    type: PhoneDto,
    description:
      'With one stored phone: updated in place, type included. With several: the phone of the same type is updated, ' +
      'a new type adds a phone. isDefault true makes it the default phone. A changed default phone is checked against the phone limits.',
  })
  @IsOptional()
  @NestedObject(() => PhoneDto)
  phoneNumber?: PhoneDto;
}

/** PUT /v1/programs/{programCode}/accounts/{accountIdentifier}/users/{userIdentifier} */
@ApiExtraModels(UpdateUserDataDto)
export class UpdateUserRequestDto {
  @ApiObjectOrJwe(
    UpdateUserDataDto,
    'The changes: a JSON object, or (partners configured for encryption) that object as a compact JWE string (ECDH-ES/A256GCM, not compressed).',
  )
  @NestedObject(() => UpdateUserDataDto)
  encryptedUserData: UpdateUserDataDto;
}
