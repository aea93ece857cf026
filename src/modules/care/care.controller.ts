import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAnswer, ApiErrors, errorExample, successExample } from '../../common/openapi/api-answers';
import { ACCOUNT_ANSWER_EXAMPLES, ACCOUNT_VIEW_EXAMPLE } from '../account-views/dtos/account-examples';
import { AccountResponseDto } from '../account-views/dtos/account-view.dto';
import { AuditTrailResponseDto } from '../audit/dtos/audit-response.dto';
import type { FastifyRequest } from 'fastify';
import { RequiresScopes } from '../../common/auth/decorators';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { AccountView, AccountViewService } from '../account-views/services/account-view.service';
import { CallRunner } from '../locking/call-runner';
import { ApiLocked } from '../locking/lock-on.decorator';
import { LockNames } from '../../infrastructure/database/lock.service';
import type { CallConnection } from '../../infrastructure/database/call-connection';
import { CareActionDto, RemoveFraudBlockDto } from './dtos/care-action.dto';
import { CareActionRunner, CareActor } from './services/care-action-runner';
import { AuditView, CareAuditService } from '../audit/care-audit.service';
import { CareOperationsService } from './services/care-operations.service';
import { CardReplacementService } from './services/card-replacement.service';
import { CardUnblockService } from './services/card-unblock.service';
import { NO_QUERY, NoQuery } from '../../common/validation/validate-only';

/** X-Care-Agent: the staff member acting, recorded beside the care client id in the audit trail. */
const AGENT_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;

const VIEW = "The envelope with the account's current `account`, `user` and `paymentInstruments` (the views of GET account).";

/**
 * A state-changing care operation: HTTP 200, locked on the account like partner calls on it, the
 * account view as answer, 409/5/390 when it does not apply.
 */
const CareOperation = (
  operation: { operationId: string; summary: string; description?: string },
  conflict: string,
  body: typeof CareActionDto = CareActionDto,
  /** The operation makes the account count as active again: its keys' active limits may refuse it (HTTP 200). */
  limitDeclines = false,
) =>
  applyDecorators(
    HttpCode(200),
    ApiLocked('accountIdentifier'),
    ApiOperation(operation),
    ApiHeader({
      name: 'X-Care-Agent',
      required: false,
      description: 'The staff member acting, recorded in the audit trail as <care client id>/<agent> (a staff id, not personal data); else 100/5',
      schema: { type: 'string', pattern: AGENT_PATTERN.source },
    }),
    ApiBody({
      type: body,
      required: false,
      examples: {
        empty: { summary: 'No body (or {})', value: {} },
        correlated: { summary: 'A correlation id, echoed as the answer requestId', value: { requestId: 'care-20261121-0001' } },
        ...(body === RemoveFraudBlockDto
          ? { sandboxFailures: { summary: 'Sandbox: the first 3 unblock attempts fail', value: { sandboxUnblockFailures: 3 } } }
          : {}),
      },
    }),
    ApiAnswer(
      AccountResponseDto,
      limitDeclines
        ? `${VIEW} Or a decline with HTTP 200, nothing changed, when the account would count as active again while its SSN, ITIN or ` +
            'default phone already has its active accounts (enrolled while this one was blocked): 2/60, 2/63 (close one first).'
        : VIEW,
      {
        success: { summary: 'The account after the operation', value: successExample(ACCOUNT_VIEW_EXAMPLE) },
        ...(limitDeclines
          ? {
              activeSsnLimit: { summary: 'Decline 2/60 (HTTP 200)', value: errorExample('ACTIVE_SSN_LIMIT') },
              activePhoneLimit: { summary: 'Decline 2/63 (HTTP 200)', value: errorExample('ACTIVE_PHONE_LIMIT') },
            }
          : {}),
      },
    ),
    ApiErrors(
      { 400: ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'INVALID_FIELD'], 409: ['CARE_NOT_APPLICABLE'] },
      { 400: 'A bad requestId or X-Care-Agent header (100/5)', 409: conflict },
    ),
  );

/**
 * The issuer's care team (scope care), CONTRACT section 8. Each operation locks the account (as
 * partner calls on it do), answers the current view, and is recorded in the care audit trail
 * (actor = the care client id, plus `/<agent>` when the X-Care-Agent header names one).
 */
@ApiTags('Care')
@Controller('v1/care/accounts/:accountIdentifier')
@RequiresScopes('care')
@ApiErrors({ 404: ['ACCOUNT_NOT_FOUND'] }, { 404: "Unknown account, or outside the care client's programs" })
export class CareController {
  constructor(
    private readonly operations: CareOperationsService,
    private readonly unblock: CardUnblockService,
    private readonly replacement: CardReplacementService,
    private readonly audit: CareAuditService,
    private readonly views: AccountViewService,
    private readonly runner: CareActionRunner,
    private readonly calls: CallRunner,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'careGetAccount', summary: 'The account as care sees it' })
  @ApiAnswer(AccountResponseDto, VIEW, ACCOUNT_ANSWER_EXAMPLES)
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'] }, { 400: NO_QUERY })
  async get(@CurrentPrincipal() principal: Principal, @Param('accountIdentifier') accountId: string, @NoQuery() _query: undefined): Promise<AccountView> {
    await this.runner.requireVisible(actorOf(principal), accountId);
    return this.views.render(accountId, principal.partner);
  }

  @Get('audit')
  @ApiOperation({ operationId: 'careGetAuditTrail', summary: 'The care audit trail of the account: who did what, when, with the state before and after' })
  @ApiAnswer(AuditTrailResponseDto, 'auditTrail, oldest first', {
    success: {
      summary: 'One fraud block',
      value: successExample({
        auditTrail: [
          {
            action: 'fraudBlock',
            actor: 'issuer-care/agent.smith',
            at: '2026-11-21T11:00:00.000Z',
            before: {
              status: 'normal',
              statusReason: null,
              kycPendingGate: 'none',
              accountCycleDay: 21,
              paymentInstruments: [{ paymentIdentifier: '9b2f6c1e-3d0a-4a53-8d7e-2f1c0b6e4a11', status: 'active' }],
            },
            after: {
              status: 'locked',
              statusReason: 'fraudBlock',
              kycPendingGate: 'none',
              accountCycleDay: 21,
              paymentInstruments: [{ paymentIdentifier: '9b2f6c1e-3d0a-4a53-8d7e-2f1c0b6e4a11', status: 'blocked' }],
            },
            detail: {},
          },
        ],
      }),
    },
  })
  @ApiErrors({ 400: ['UNKNOWN_PROPERTY'] }, { 400: NO_QUERY })
  async auditTrail(
    @CurrentPrincipal() principal: Principal,
    @Param('accountIdentifier') accountId: string,
    @NoQuery() _query: undefined,
  ): Promise<{ auditTrail: AuditView[] }> {
    await this.runner.requireVisible(actorOf(principal), accountId);
    return { auditTrail: await this.audit.list(accountId) };
  }

  @Post('lock')
  @CareOperation(
    {
      operationId: 'careLock',
      summary: 'Lock the account (status locked, statusReason careLock); from normal or pending, not while an OFAC hold is under review',
    },
    'Not applicable: closed, already locked, or held for OFAC review (409, code 5, subCode 390)',
  )
  lock(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.operations.lock(call, who, id));
  }

  @Post('unlock')
  @CareOperation(
    {
      operationId: 'careUnlock',
      summary: 'Unlock a care lock: the status and statusReason before the lock come back',
      description:
        'The status and statusReason the lock found come back. If a card unblock run ended while the lock was held (see DELETE ' +
        'fraudBlock), they come back under review: statusReason underReview and kycPendingGate manual, the cards still blocked.',
    },
    'Not locked by care (a fraud block is removed with DELETE fraudBlock) (409/5/390)',
    CareActionDto,
    true,
  )
  unlock(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.operations.unlock(call, who, id));
  }

  @Post('close')
  @CareOperation(
    {
      operationId: 'careClose',
      summary: 'Close the account and its usable cards, ending any KYC review (kycPendingGate none); a closed account no longer counts as active for limits',
    },
    'Already closed (409/5/390)',
  )
  close(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.operations.close(call, who, id));
  }

  @Post('fraudBlock')
  @CareOperation(
    { operationId: 'careFraudBlock', summary: 'Fraud block: account locked (statusReason fraudBlock), active and inactive cards blocked' },
    'Closed, already locked or blocked, or held for OFAC review (409/5/390)',
  )
  fraudBlock(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.operations.fraudBlock(call, who, id));
  }

  @Delete('fraudBlock')
  @CareOperation(
    {
      operationId: 'careRemoveFraudBlock',
      summary: 'Remove the fraud block: the account is healthy and normal at once; the blocked cards are unblocked by retries',
      description:
        'The account is set healthy and normal, whatever it was before the block: status normal, statusReason null, ' +
        'kycPendingGate none (a KYC referral or gate from before the block is not restored). An account whose enrollment never ' +
        'completed (no bill cycle day) returns to pending instead, for the identical enrollment retry to complete. The answer shows ' +
        'the cards still blocked. Durable jobs then retry the unblock at most 3 times within 15 minutes (by default 60 s, 240 s and ' +
        '540 s apart), each retry emitting ' +
        'cardUpdated on success. If every retry fails: kycPendingGate manual and statusReason underReview, status unchanged ' +
        '(accountUpdated); POST kycGate/clear then unblocks the cards. No retry is due after the 15 minutes: a care lock ' +
        'during the retries pauses them until then at most, and a lock found then, a failure then, or a retry the ' +
        'service could not run by then (it was down) ends the retries the same way, applied when care unlocks on a locked account.',
    },
    'Not fraud-blocked (409/5/390)',
    RemoveFraudBlockDto,
    true,
  )
  removeFraudBlock(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() body: RemoveFraudBlockDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.unblock.removeFraudBlock(call, who, id, body?.sandboxUnblockFailures));
  }

  @Post('ofacClear')
  @CareOperation(
    {
      operationId: 'careOfacClear',
      summary:
        'Clear an OFAC hold: the held enrollment completes exactly as originally requested (its KYC decision, which the hold came before, then bill cycle, card; status normal, or pending for manual review when KYC refers it); if its keys filled their active limits while it was held, it ends with that limit decline instead (account closed, statusReason limitExceeded)',
    },
    'Not held for OFAC review (409/5/390)',
  )
  ofacClear(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.operations.clearOfac(call, who, id));
  }

  @Post('kycGate/clear')
  @CareOperation(
    { operationId: 'careClearKycGate', summary: 'Clear the KYC gate: kycPendingGate manual → none, status normal, inactive or blocked cards active' },
    'No manual gate, or the account is locked or closed (409/5/390)',
  )
  clearKycGate(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.operations.clearKycGate(call, who, id));
  }

  @Post('paymentInstruments/:paymentIdentifier/replace')
  @CareOperation(
    { operationId: 'careReplaceCard', summary: 'Replace a card: a new card with the current names (and business name); the old one becomes replaced' },
    'Card already replaced or closed, or account closed (409/5/390)',
  )
  @ApiErrors({ 404: ['ACCOUNT_NOT_FOUND', 'PAYMENT_INSTRUMENT_NOT_FOUND'] }, { 404: 'Unknown account, or a card of another account' })
  replace(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Param('paymentIdentifier') paymentIdentifier: string,
    @Body() _body: CareActionDto,
    @NoQuery() _query: undefined,
  ) {
    return this.act(p, r, id, (call, who) => this.replacement.replace(call, who, id, paymentIdentifier));
  }

  /** Locked on the account like partner calls on it; the answer is read on the call's connection, before its commit. */
  private act(
    principal: Principal,
    request: FastifyRequest,
    accountId: string,
    action: (call: CallConnection, who: CareActor) => Promise<void>,
  ): Promise<AccountView> {
    const who = actorOf(principal, request.headers['x-care-agent']);
    return this.calls.locked([LockNames.account(accountId)], async (call) => {
      await action(call, who);
      return this.views.render(accountId, principal.partner, call.manager);
    });
  }
}

function actorOf(principal: Principal, agent?: string | string[]): CareActor {
  const programs = principal.partner.programs;
  if (agent === undefined) return { actor: principal.clientId, programs };
  if (typeof agent !== 'string' || !AGENT_PATTERN.test(agent)) throw new DomainError('INVALID_FIELD', { property: 'X-Care-Agent' });
  return { actor: `${principal.clientId}/${agent}`, programs };
}
