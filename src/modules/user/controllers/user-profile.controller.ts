import { Controller, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, errorExample, successExample, VALID_ONLY_EXAMPLE } from '../../../common/openapi/api-answers';
import { ACCOUNT_USER_NOT_FOUND, USER_EXAMPLE } from '../dtos/user-examples';
import { UserResponseDto } from '../dtos/user-view.dto';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { UserView } from '../services/user-view.service';
import { ValidBody } from '../../../common/validation/valid-body';
import { ValidateOnly } from '../../../common/validation/validate-only';
import { validatedOnly, ValidatedOnly } from '../../../common/http/answer';
import { ApiLocked } from '../../locking/lock-on.decorator';
import { UpdateUserRequestDto } from '../dtos/update-user.dto';
import { UserProfileService } from '../services/user-profile.service';

@ApiTags('users')
@Controller('v1/programs/:programCode/accounts/:accountIdentifier/users')
@RequiresScopes('users')
export class UserProfileController {
  constructor(private readonly profiles: UserProfileService) {}

  @Put(':userIdentifier')
  @HttpCode(200)
  @ApiLocked('accountIdentifier', 'userIdentifier')
  @ApiOperation({
    operationId: 'updateUser',
    summary: 'Update the address, email and/or phone of a user',
    description:
      'Each of address, email and phoneNumber is optional; an excluded one is neither updated nor created, and nothing is ever deleted. ' +
      'Address: the address of the same type is replaced, a new type is added; isDefault true makes it the default (home or business only, else 400/1040). ' +
      'Phone: with one stored phone it is updated in place (type included); with several, the phone of the same type is updated and a new type is added; ' +
      'isDefault true makes it the default. A new default phone number is checked against the phone limits (HTTP 200, code 2, subCode 63 or 66; nothing stored). ' +
      'Pending accounts can be updated; a locked account is declined with HTTP 200, code 5, subCode 362 and nothing stored. ' +
      'Of the other states, a closed account can be updated too (only a locked one is declined). ' +
      'Address text is normalised to Unicode NFC before validation and storage. Emits userUpdated.',
  })
  @ApiAnswer(
    UserResponseDto,
    'Success with the user (user.encryptedUserData: JWE for encryption partners, omitted otherwise), or a decline with HTTP 200 and nothing stored: ' +
      'a locked account (code 5, subCode 362) or a new default phone over the phone limits (code 2, subCode 63 or 66)',
    {
      success: { summary: 'Updated', value: successExample({ user: USER_EXAMPLE }) },
      lockedAccount: { summary: 'Decline 5/362 (HTTP 200): the account is locked', value: errorExample('ACCOUNT_LOCKED') },
      phoneLimit: { summary: 'Decline 2/63 (HTTP 200): the new default phone is on too many active accounts', value: errorExample('ACTIVE_PHONE_LIMIT') },
      validateOnly: VALID_ONLY_EXAMPLE,
    },
  )
  @ApiErrors(
    {
      400: [
        'MALFORMED_JSON',
        'UNKNOWN_PROPERTY',
        'REQUIRED_FIELD_MISSING',
        'INVALID_FIELD',
        'MULTIPLE_DEFAULT_ADDRESSES',
        'CITY_LENGTH',
        'ADDRESS_LINE1_LENGTH',
        'ADDRESS_LINE2_LENGTH',
        'CITY_CHARACTERS',
        'ADDRESS_LINE1_CHARACTERS',
        'ADDRESS_LINE2_CHARACTERS',
        'INVALID_PHONE',
        'INVALID_EMAIL',
        'INVALID_STATE',
        'INVALID_ZIP',
      ],
      404: ['ACCOUNT_NOT_FOUND'],
    },
    { 400: 'Address and city length (400/504-506) and character (640/504-506) rows; phone 770, email 750, state 780, zip 350', 404: ACCOUNT_USER_NOT_FOUND },
  )
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
    @Param('userIdentifier') userIdentifier: string,
    @ValidateOnly() validateOnly: boolean,
    @ValidBody(UpdateUserRequestDto, {
      examples: {
        address: {
          summary: 'Replace the home address',
          value: {
            encryptedUserData: { address: { type: 'home', addressLine1: '200 Oak Ave', city: 'Austin', state: 'TX', zipCode: '78702', countryCode: 'US' } },
          },
        },
        phoneAndEmail: {
          summary: 'Update the mobile phone and the email',
          value: { encryptedUserData: { phoneNumber: { phoneType: 'mobile', number: '5125550111' }, email: { emailAddress: 'jose.n@example.com' } } },
        },
      },
    })
    body: UpdateUserRequestDto,
  ): Promise<{ user: UserView } | ValidatedOnly> {
    if (validateOnly) {
      this.profiles.validate(body.encryptedUserData);
      return validatedOnly();
    }
    return { user: await this.profiles.update(principal, programCode, accountIdentifier, userIdentifier, body.encryptedUserData) };
  }
}
