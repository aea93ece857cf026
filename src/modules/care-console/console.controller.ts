import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { DomainError } from '../../common/errors/domain-error';
import { CareConsoleService } from './care-console.service';
import { careReason, REASON_RULE, shownReason } from './care-reason';
import { ConsoleGate } from './console-gate';
import { ConsoleExceptionFilter } from './console.filter';
import {
  BUSINESS_REVEALABLE,
  BusinessRevealField,
  isOperation,
  OperationName,
  OPERATIONS,
  REVEALABLE,
  RevealField,
  SEARCH_KINDS,
  SearchKind,
  Staff,
} from './staff';
import { accountPage, confirmPage, notApplicablePage, notRevealablePage, Revealed, searchPage } from './views/pages';
import { AcceptsForm } from '../../common/http/form-body';

type Form = Record<string, unknown>;
const text = (form: Form | undefined, name: string): string => (typeof form?.[name] === 'string' ? (form[name] as string) : '');

/**
 * The care console's pages (CONTRACT section 14): search, the account page, a confirmation page
 * per operation (reason required), and audited reveals. Public for the bearer guard: the console
 * has its own sign-in and session (ConsoleGate).
 */
@ApiExcludeController()
@Public()
@UseFilters(ConsoleExceptionFilter)
@Controller('care')
export class ConsoleController {
  constructor(
    private readonly gate: ConsoleGate,
    private readonly console: CareConsoleService,
  ) {}

  @Get()
  home(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    const staff = this.gate.staff(request);
    this.html(reply, searchPage({ title: 'Find an account', staff, csrf: this.gate.token(reply), notice: this.flash(request) }, 'accountIdentifier', '', null));
  }

  /** Bookmarkable look-ups by identifier only; a full SSN or phone number is searched with the (posted) form. */
  @Get('search')
  async searchByLink(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query() query: Form): Promise<void> {
    const staff = this.gate.staff(request);
    const kind = this.kind(query);
    if (kind === 'ssn' || kind === 'phone') {
      this.html(
        reply.status(400),
        searchPage(
          {
            title: 'Find an account',
            staff,
            csrf: this.gate.token(reply),
            error: 'Search by SSN or phone number with the form: the value is never put in a link.',
          },
          kind,
          '',
          null,
        ),
      );
      return;
    }
    await this.search(request, reply, kind, text(query, 'q'));
  }

  @Post('search')
  @HttpCode(200)
  @AcceptsForm('fields')
  async searchByForm(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form): Promise<void> {
    this.gate.staff(request);
    await this.gate.csrf(request);
    await this.search(request, reply, this.kind(form), text(form, 'q'));
  }

  private async search(request: FastifyRequest, reply: FastifyReply, kind: SearchKind, raw: string): Promise<void> {
    const staff = this.gate.staff(request);
    const q = raw.slice(0, 100);
    // A full SSN or phone number is searched for, never written back into the page (an identifier is).
    const shown = kind === 'ssn' || kind === 'phone' ? '' : q;
    const frame = { title: 'Search results', staff, csrf: this.gate.token(reply) };
    try {
      this.html(reply, searchPage(frame, kind, shown, await this.console.search(staff, kind, q)));
    } catch (error) {
      if (!(error instanceof DomainError) || error.key !== 'INVALID_FIELD') throw error;
      this.html(
        reply.status(400),
        searchPage(
          { ...frame, error: kind === 'ssn' ? 'Enter the full 9-digit SSN or ITIN.' : 'Enter the full phone number (10 to 15 digits).' },
          kind,
          shown,
          null,
        ),
      );
    }
  }

  private kind(source: Form): SearchKind {
    const kind = text(source, 'kind');
    return (SEARCH_KINDS as readonly string[]).includes(kind) ? (kind as SearchKind) : 'accountIdentifier';
  }

  @Get('accounts/:accountId')
  async account(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('accountId') accountId: string): Promise<void> {
    const staff = this.gate.staff(request);
    const page = await this.console.page(staff, accountId);
    this.html(reply, accountPage({ title: '', staff, csrf: this.gate.token(reply), notice: this.flash(request) }, page, null));
  }

  @Get('accounts/:accountId/operations/:operation')
  async confirm(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('accountId') accountId: string,
    @Param('operation') operation: string,
    @Query() query: Form,
  ): Promise<void> {
    const staff = this.gate.staff(request);
    const op = this.operation(operation);
    const card = op === 'replaceCard' ? text(query, 'paymentIdentifier') || null : null;
    const refusal = await this.console.refusal(staff, accountId, op, card);
    if (refusal !== null) {
      this.html(reply.status(409), notApplicablePage(staff, this.gate.token(reply), accountId, op, refusal));
      return;
    }
    this.html(reply, confirmPage({ title: '', staff, csrf: this.gate.token(reply) }, accountId, op, card));
  }

  @Post('accounts/:accountId/operations/:operation')
  @AcceptsForm('fields')
  async operate(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('accountId') accountId: string,
    @Param('operation') operation: string,
    @Body() form: Form,
  ): Promise<void> {
    const staff = this.gate.staff(request);
    await this.gate.csrf(request);
    const op = this.operation(operation);
    const reason = careReason(text(form, 'reason'));
    const card = op === 'replaceCard' ? text(form, 'paymentIdentifier') || null : null;
    if (!reason.valid) {
      const page = confirmPage({ title: '', staff, csrf: this.gate.token(reply), error: REASON_RULE }, accountId, op, card, shownReason(reason.text));
      this.html(reply.status(400), page);
      return;
    }
    try {
      await this.console.operate(staff, accountId, op, reason.text, card ?? undefined);
    } catch (error) {
      if (!(error instanceof DomainError) || error.key !== 'CARE_NOT_APPLICABLE') throw error;
      // The account changed since the page was shown (another agent, a job): say what it is now.
      const refusal = (await this.console.refusal(staff, accountId, op, card)) ?? 'It does not apply to the account in its current state.';
      this.html(reply.status(409), notApplicablePage(staff, this.gate.token(reply), accountId, op, refusal));
      return;
    }
    request.session.flash = `${OPERATIONS[op].label}: done.`;
    void reply.redirect(`/care/accounts/${encodeURIComponent(accountId)}`, 303);
  }

  /** The full value is shown on this answer only (never in a URL or the session); the reveal is audited first. */
  @Post('accounts/:accountId/users/:userId/reveal')
  @HttpCode(200)
  @AcceptsForm('fields')
  async reveal(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('accountId') accountId: string,
    @Param('userId') userId: string,
    @Body() form: Form,
  ): Promise<void> {
    const staff = this.gate.staff(request);
    await this.gate.csrf(request);
    const field = text(form, 'field');
    if (!Object.prototype.hasOwnProperty.call(REVEALABLE, field)) throw new DomainError('INVALID_FIELD', { property: 'field' });
    await this.showRevealed(reply, staff, accountId, REVEALABLE[field as RevealField], { userIdentifier: userId, field: field as RevealField }, () =>
      this.console.reveal(staff, accountId, userId, field as RevealField),
    );
  }

  /** The business profile's email or phone number, as a user's field above. */
  @Post('accounts/:accountId/businessProfile/reveal')
  @HttpCode(200)
  @AcceptsForm('fields')
  async revealBusiness(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('accountId') accountId: string, @Body() form: Form): Promise<void> {
    const staff = this.gate.staff(request);
    await this.gate.csrf(request);
    const field = text(form, 'field');
    if (!Object.prototype.hasOwnProperty.call(BUSINESS_REVEALABLE, field)) throw new DomainError('INVALID_FIELD', { property: 'field' });
    await this.showRevealed(
      reply,
      staff,
      accountId,
      BUSINESS_REVEALABLE[field as BusinessRevealField],
      { userIdentifier: null, field: field as BusinessRevealField },
      () => this.console.revealBusiness(staff, accountId, field as BusinessRevealField),
    );
  }

  /** The account page with the value `read` returns (audited there); a value not held in full is a 409 page that says so. */
  private async showRevealed(
    reply: FastifyReply,
    staff: Staff,
    accountId: string,
    label: string,
    which: Omit<Revealed, 'value'>,
    read: () => Promise<string>,
  ): Promise<void> {
    let value: string;
    try {
      value = await read();
    } catch (error) {
      if (!(error instanceof DomainError) || error.key !== 'CARE_NOT_APPLICABLE') throw error;
      this.html(reply.status(409), notRevealablePage(staff, this.gate.token(reply), accountId, label));
      return;
    }
    const page = await this.console.page(staff, accountId);
    const notice = `${label} revealed; the reveal is recorded in the audit trail.`;
    this.html(reply, accountPage({ title: '', staff, csrf: this.gate.token(reply), notice }, page, { ...which, value }));
  }

  private operation(name: string): OperationName {
    if (!isOperation(name)) throw new DomainError('ACCOUNT_NOT_FOUND');
    return name;
  }

  private flash(request: FastifyRequest): string | null {
    const flash = request.session.flash ?? null;
    delete request.session.flash;
    return flash;
  }

  private html(reply: FastifyReply, page: string): void {
    void reply.type('text/html; charset=utf-8').send(page);
  }
}
