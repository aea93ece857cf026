import { Controller, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { UserView } from '../../accounts/services/account-view.service';
import { ValidBody } from '../../../common/validation/valid-body';
import { ValidateOnly } from '../../../common/validation/validate-only';
import { validatedOnly, ValidatedOnly } from '../../../common/http/envelope.interceptor';
import { ApiLocked } from '../../locking/lock-on.decorator';
import { UpdateUserRequestDto } from '../dtos/update-user.dto';
import { UserProfileService } from '../services/user-profile.service';

const NOT_FOUND = '404/10/0 "Account Not Found": unknown account or user, or one of another partner or program';

@ApiTags('users')
@Controller('v1/programs/:programCode/accounts/:accountIdentifier/users')
@RequiresScopes('users')
export class UserProfileController {
  constructor(private readonly profiles: UserProfileService) {}

  @Put(':userIdentifier')
  @HttpCode(200)
  @ApiLocked('accountIdentifier', 'userIdentifier')
  @ApiOperation({
    summary: 'Update the address, email and/or phone of a user',
    description:
      'Each of address, email and phoneNumber is optional; an excluded one is neither updated nor created, and nothing is ever deleted. ' +
      'Address: the address of the same type is replaced, a new type is added; isDefault true makes it the default (home or business only, else 400/1040). ' +
      'Phone: with one stored phone it is updated in place (type included); with several, the phone of the same type is updated and a new type is added; ' +
      'isDefault true makes it the default. A new default phone number is checked against the phone limits (HTTP 200, code 2, subCode 63 or 66; nothing stored). ' +
      'Pending accounts can be updated; a locked account is declined with HTTP 200, code 5, subCode 362 and nothing stored. ' +
      'Decision where SERVICE.md is silent: a closed account can be updated (only a locked one is declined). ' +
      'Address text is normalised to Unicode NFC before validation and storage. Emits userUpdated.',
  })
  @ApiOkResponse({ description: '{ requestId, responseDetails, user } (user.encryptedUserData: JWE for encryption partners, omitted otherwise)' })
  @ApiBadRequestResponse({ description: 'Address and city length (400/504-506) and character (640/504-506) rows; phone 770, email 750, state 780, zip 350' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
    @Param('userIdentifier') userIdentifier: string,
    @ValidateOnly() validateOnly: boolean,
    @ValidBody(UpdateUserRequestDto) body: UpdateUserRequestDto,
  ): Promise<{ user: UserView } | ValidatedOnly> {
    if (validateOnly) {
      this.profiles.validate(body.encryptedUserData);
      return validatedOnly();
    }
    return { user: await this.profiles.update(principal, programCode, accountIdentifier, userIdentifier, body.encryptedUserData) };
  }

  @Get()
  @ApiOperation({ summary: 'Every user of the account, primary first' })
  @ApiOkResponse({ description: '{ requestId, responseDetails, users: [user, …] } (encryptedUserData per the partner configuration)' })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
  ): Promise<{ users: UserView[] }> {
    return { users: await this.profiles.list(principal, programCode, accountIdentifier) };
  }
}
