import { Body, Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiEmptyBody, EmptyBody } from '../../common/validation/empty-body';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, successExample } from '../../common/openapi/api-answers';
import { RequiresScopes } from '../../common/auth/decorators';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import { Principal } from '../../common/context/request-context';
import { ResetCounts } from './sandbox-reset.repository';
import { SandboxResetResponse } from './sandbox-reset.dto';
import { SandboxResetService } from './sandbox-reset.service';
import { NoQuery } from '../../common/validation/validate-only';

@ApiTags('partner tools')
@Controller('v1/sandbox/programs/:programCode')
@RequiresScopes('enrollments')
export class SandboxController {
  constructor(private readonly resets: SandboxResetService) {}

  @Delete('data')
  @HttpCode(200)
  @ApiEmptyBody()
  @ApiOperation({
    operationId: 'resetSandboxData',
    summary: 'Sandbox only: remove everything the calling partner created in this program',
    description:
      'Accounts, users, addresses, phones, purses, cards, limit keys, business profiles, enrollment progress, care audit rows of those accounts, ' +
      'requestIds (stored answers), outbox events with their delivery log and scan captures of the calling partner in this program; nothing of any other partner ' +
      "or program. Afterwards limits count only what remains. One transaction; it waits for the partner's enrollments in flight in this program " +
      '(up to the lock wait of a few seconds, else 503/503/1 with Retry-After) and holds new ones until it commits. Not served in production (404/404/0, as an unknown route).',
  })
  @ApiAnswer(SandboxResetResponse, "What was removed of the calling partner's data in the program", {
    removed: { summary: 'Two accounts removed', value: successExample({ removed: { accounts: 2, users: 2 } }) },
  })
  @ApiErrors(
    { 400: ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'INVALID_FIELD'], 503: ['LOCK_TIMEOUT', 'DEPENDENCY_UNAVAILABLE'] },
    {
      400: 'A body other than none or {}, or any query parameter',
      503: "The partner's enrollments in flight did not finish within the lock wait; retry after Retry-After seconds",
    },
  )
  async reset(
    @CurrentPrincipal() principal: Principal,
    @Param('programCode') programCode: string,
    @Body() _body: EmptyBody,
    @NoQuery() _query: undefined,
  ): Promise<{ removed: ResetCounts }> {
    return { removed: await this.resets.reset(principal, programCode) };
  }
}
