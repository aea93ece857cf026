import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, errorExample, successExample } from '../../../common/openapi/api-answers';
import { USER_EXAMPLE } from '../../user/dtos/user-examples';
import { UserResponseDto } from '../../user/dtos/user-view.dto';
import { RequiresScopes } from '../../../common/auth/decorators';
import { CurrentPrincipal } from '../../../common/auth/principal.decorator';
import { Principal } from '../../../common/context/request-context';
import { UserView } from '../../user/services/user-view.service';
import { ApiLocked } from '../../locking/lock-on.decorator';
import { AddIdentityDto } from '../dtos/add-identity.dto';
import { IdentityService } from '../services/identity.service';
import { NoQuery } from '../../../common/validation/validate-only';

@ApiTags('identity')
@Controller('v1/accounts/:accountIdentifier/users/:userIdentifier/identity')
@RequiresScopes('identity')
export class IdentityController {
  constructor(private readonly identity: IdentityService) {}

  @Post()
  @HttpCode(200)
  @ApiLocked('accountIdentifier', 'userIdentifier')
  @ApiOperation({
    operationId: 'addIdentity',
    summary: 'Add an ITIN to a user of a Matricula-based enrollment',
    description:
      'Only for accounts enrolled with a Matricula Consular ID (else HTTP 200, 5/380). The ITIN counts in the limits: ' +
      '1 active and 3 lifetime accounts per consumer program with the same ITIN (HTTP 200, 2/60 and 2/61; a business account uses the ' +
      "program's business ITIN limits), counted like enrollment limits and under the same lock. " +
      'Sending the ITIN the user already has changes nothing and answers success; a different ITIN once one was added is declined ' +
      '(HTTP 200, 5/381). A locked account is declined like a user update (HTTP 200, 5/362). ' +
      'Of the other states, a closed account accepts the ITIN (it then counts toward the lifetime limit only). ' +
      'Until an ITIN is added, a Matricula enrollment counts under no SSN/ITIN limit. Emits userUpdated.',
  })
  @ApiBody({ type: AddIdentityDto, examples: { itin: { summary: 'An ITIN: 9 digits starting with 9', value: { itin: '912345678' } } } })
  @ApiAnswer(
    UserResponseDto,
    'Success with the user (user.encryptedUserData: JWE for encryption partners, omitted otherwise), or a decline with HTTP 200: ' +
      'not a Matricula enrollment (5/380), a different ITIN already added (5/381), a locked account (5/362), ITIN limits (2/60, 2/61)',
    {
      success: { summary: 'ITIN added', value: successExample({ user: USER_EXAMPLE }) },
      notMatricula: { summary: 'Decline 5/380 (HTTP 200)', value: errorExample('NOT_MATRICULA_ENROLLMENT') },
      itinAlreadyAdded: { summary: 'Decline 5/381 (HTTP 200)', value: errorExample('ITIN_ALREADY_ADDED') },
      lockedAccount: { summary: 'Decline 5/362 (HTTP 200)', value: errorExample('ACCOUNT_LOCKED') },
      activeItinLimit: { summary: 'Decline 2/60 (HTTP 200)', value: errorExample('ACTIVE_SSN_LIMIT') },
      lifetimeItinLimit: { summary: 'Decline 2/61 (HTTP 200)', value: errorExample('LIFETIME_SSN_LIMIT') },
    },
  )
  @ApiErrors(
    { 400: ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'REQUIRED_FIELD_MISSING', 'INVALID_ITIN'], 404: ['ACCOUNT_NOT_FOUND'] },
    { 400: 'Not 9 digits, non-numeric or not starting with 9: 400/761/0 Invalid ITIN', 404: 'Unknown account or user, or one of another partner' },
  )
  async add(
    @CurrentPrincipal() principal: Principal,
    @Param('accountIdentifier') accountIdentifier: string,
    @Param('userIdentifier') userIdentifier: string,
    @Body() body: AddIdentityDto,
    @NoQuery() _query: undefined,
  ): Promise<{ user: UserView }> {
    return { user: await this.identity.addItin(principal, accountIdentifier, userIdentifier, body.itin) };
  }
}
