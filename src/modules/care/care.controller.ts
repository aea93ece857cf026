import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { RequiresScopes } from '../../common/auth/decorators';
import { CurrentPrincipal } from '../../common/auth/principal.decorator';
import type { Principal } from '../../common/context/request-context';
import { DomainError } from '../../common/errors/domain-error';
import { AccountView, AccountViewService } from '../accounts/services/account-view.service';
import { CallRunner } from '../locking/call-runner';
import { ApiLocked } from '../locking/lock-on.decorator';
import { LockNames } from '../../infrastructure/database/lock.service';
import { TransactionRunner } from '../../infrastructure/database/transaction-runner';
import { CareActionDto, RemoveFraudBlockDto } from './dtos/care-action.dto';
import { CareActionRunner, CareActor } from './services/care-action-runner';
import { AuditView, CareAuditService } from '../audit/care-audit.service';
import { CareOperationsService } from './services/care-operations.service';
import { CardReplacementService } from './services/card-replacement.service';
import { CardUnblockService } from './services/card-unblock.service';

const VIEW = 'The envelope with the account\'s current `account`, `user` and `paymentInstruments` (the views of GET account).';

/**
 * A state-changing care operation: HTTP 200, locked on the account like partner calls on it, the
 * account view as answer, 409/5/390 when it does not apply.
 */
const CareOperation = (operation: { summary: string; description?: string }, conflict: string) =>
  applyDecorators(
    HttpCode(200),
    ApiLocked('accountIdentifier'),
    ApiOperation(operation),
    ApiOkResponse({ description: VIEW }),
    ApiConflictResponse({ description: conflict }),
  );

const AGENT_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * The issuer's care team (scope care), CONTRACT section 8. Each operation locks the account (as
 * partner calls on it do), answers the current view, and is recorded in the care audit trail
 * (actor = the care client id, plus `/<agent>` when the X-Care-Agent header names one).
 */
@ApiTags('Care')
@Controller('v1/care/accounts/:accountIdentifier')
@RequiresScopes('care')
@ApiNotFoundResponse({ description: 'Unknown account, or outside the care client\'s programs (404, code 10, subCode 0)' })
export class CareController {
  constructor(
    private readonly operations: CareOperationsService,
    private readonly unblock: CardUnblockService,
    private readonly replacement: CardReplacementService,
    private readonly audit: CareAuditService,
    private readonly views: AccountViewService,
    private readonly runner: CareActionRunner,
    private readonly calls: CallRunner,
    private readonly tx: TransactionRunner,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The account as care sees it' })
  @ApiOkResponse({ description: VIEW })
  async get(@CurrentPrincipal() principal: Principal, @Param('accountIdentifier') accountId: string): Promise<AccountView> {
    await this.runner.requireVisible(actorOf(principal), accountId);
    return this.views.render(accountId, principal.partner);
  }

  @Get('audit')
  @ApiOperation({ summary: 'The care audit trail of the account: who did what, when, with the state before and after' })
  @ApiOkResponse({ description: '{ auditTrail: [{ action, actor, at, before, after, detail }] }, oldest first' })
  async auditTrail(@CurrentPrincipal() principal: Principal, @Param('accountIdentifier') accountId: string): Promise<{ auditTrail: AuditView[] }> {
    await this.runner.requireVisible(actorOf(principal), accountId);
    return { auditTrail: await this.audit.list(accountId) };
  }

  @Post('lock')
  @CareOperation({ summary: 'Lock the account (status locked, statusReason careLock); from normal or pending' }, 'Not applicable: closed, already locked, or held for OFAC review (409, code 5, subCode 390)')
  lock(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() _body: CareActionDto) {
    return this.act(p, r, id, (who) => this.operations.lock(who, id));
  }

  @Post('unlock')
  @CareOperation({ summary: 'Unlock a care lock: the status and statusReason before the lock come back' }, 'Not locked by care (a fraud block is removed with DELETE fraudBlock) (409/5/390)')
  unlock(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() _body: CareActionDto) {
    return this.act(p, r, id, (who) => this.operations.unlock(who, id));
  }

  @Post('close')
  @CareOperation({ summary: 'Close the account and its usable cards; a closed account no longer counts as active for limits' }, 'Already closed (409/5/390)')
  close(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() _body: CareActionDto) {
    return this.act(p, r, id, (who) => this.operations.close(who, id));
  }

  @Post('fraudBlock')
  @CareOperation({ summary: 'Fraud block: account locked (statusReason fraudBlock), active and inactive cards blocked' }, 'Closed, already locked or blocked, or held for OFAC review (409/5/390)')
  fraudBlock(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() _body: CareActionDto) {
    return this.act(p, r, id, (who) => this.operations.fraudBlock(who, id));
  }

  @Delete('fraudBlock')
  @CareOperation({
    summary: 'Remove the fraud block: the account is healthy and normal at once; the blocked cards are unblocked by retries',
    description:
      'The account is set healthy and normal (SERVICE.md), whatever it was before the block: status normal, statusReason null, ' +
      'kycPendingGate none (a KYC referral or gate from before the block is not restored). An account whose enrollment never ' +
      'completed (no bill cycle day) returns to pending instead, for the identical enrollment retry to complete. The answer shows ' +
      'the cards still blocked. Durable jobs then retry the unblock once per UNBLOCK_RETRY_DELAYS_MS entry (default 60 s, 240 s, ' +
      '540 s apart; the service refuses to start with more than 3 entries or more than 15 minutes in all), each retry emitting ' +
      'cardUpdated on success. If every retry fails: kycPendingGate manual and statusReason underReview, status unchanged ' +
      '(accountUpdated); POST kycGate/clear then unblocks the cards.',
  }, 'Not fraud-blocked (409/5/390)')
  removeFraudBlock(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() body: RemoveFraudBlockDto) {
    return this.act(p, r, id, (who) => this.unblock.removeFraudBlock(who, id, body?.sandboxUnblockFailures ?? 0));
  }

  @Post('ofacClear')
  @CareOperation({ summary: 'Clear an OFAC hold: the held enrollment completes exactly as originally requested (bill cycle, card, status normal)' }, 'Not held for OFAC review (409/5/390)')
  ofacClear(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() _body: CareActionDto) {
    return this.act(p, r, id, (who) => this.operations.clearOfac(who, id));
  }

  @Post('kycGate/clear')
  @CareOperation({ summary: 'Clear the KYC gate: kycPendingGate manual → none, status normal, inactive or blocked cards active' }, 'No manual gate, or the account is locked or closed (409/5/390)')
  clearKycGate(@CurrentPrincipal() p: Principal, @Req() r: FastifyRequest, @Param('accountIdentifier') id: string, @Body() _body: CareActionDto) {
    return this.act(p, r, id, (who) => this.operations.clearKycGate(who, id));
  }

  @Post('paymentInstruments/:paymentIdentifier/replace')
  @CareOperation({ summary: 'Replace a card: a new card with the current names (and business name); the old one becomes replaced' }, 'Card already replaced or closed, or account closed (409/5/390)')
  @ApiNotFoundResponse({ description: 'Unknown account (404/10/0, Account Not Found) or card of another account (404/10/0, Payment instrument not found)' })
  replace(
    @CurrentPrincipal() p: Principal,
    @Req() r: FastifyRequest,
    @Param('accountIdentifier') id: string,
    @Param('paymentIdentifier') paymentIdentifier: string,
    @Body() _body: CareActionDto,
  ) {
    return this.act(p, r, id, (who) => this.replacement.replace(who, id, paymentIdentifier));
  }

  /** Locked on the account like partner calls on it; the answer is read on the call's connection, before its commit. */
  private act(principal: Principal, request: FastifyRequest, accountId: string, action: (who: CareActor) => Promise<void>): Promise<AccountView> {
    const who = actorOf(principal, request.headers['x-care-agent']);
    return this.calls.locked([LockNames.account(accountId)], async () => {
      await action(who);
      return this.tx.read((manager) => this.views.render(accountId, principal.partner, manager));
    });
  }
}

function actorOf(principal: Principal, agent?: string | string[]): CareActor {
  const programs = principal.partner.programs;
  if (agent === undefined) return { actor: principal.clientId, programs };
  if (typeof agent !== 'string' || !AGENT_PATTERN.test(agent)) throw new DomainError('INVALID_FIELD', { property: 'X-Care-Agent' });
  return { actor: `${principal.clientId}/${agent}`, programs };
}
