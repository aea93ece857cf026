import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { ApiAnswer, ApiErrors, successExample } from '../../../common/openapi/api-answers';
import { ACCOUNT_USER_NOT_FOUND, USER_EXAMPLE } from '../../user/dtos/user-examples';
import { UsersResponseDto } from '../../user/dtos/user-view.dto';
import type { UserView } from '../../user/services/user-view.service';
import { AccountViewService } from '../services/account-view.service';
import { NO_QUERY, NoQuery } from '../../../common/validation/validate-only';

/** GET users of an account: a read of the account views (PUT user is the user module's). */
@ApiTags('users')
@Controller('v1/programs/:programCode/accounts/:accountIdentifier/users')
@RequiresScopes('users')
export class AccountUsersController {
  constructor(private readonly views: AccountViewService) {}

  @Get()
  @ApiOperation({ operationId: 'listUsers', summary: 'Every user of the account, primary first' })
  @ApiAnswer(UsersResponseDto, 'users: primary first (encryptedUserData per the partner configuration)', {
    success: { summary: 'The users of the account', value: successExample({ users: [USER_EXAMPLE] }) },
  })
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'], 404: ['ACCOUNT_NOT_FOUND'] }, { 400: NO_QUERY, 404: ACCOUNT_USER_NOT_FOUND })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Param('accountIdentifier') accountIdentifier: string,
    @NoQuery() _query: undefined,
  ): Promise<{ users: UserView[] }> {
    const scope = { partnerId: principal.partner.partnerId, programCode };
    return { users: await this.views.renderUsers(accountIdentifier, principal.partner, scope) };
  }
}
