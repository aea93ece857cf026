import { Body, Controller, Get, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { AppConfig } from '../../config/app-config';
import { TokenRateLimits } from '../auth/token-rate-limit';
import { TokenService } from '../auth/token.service';
import { CareOidcGuard } from './auth/care-oidc.guard';
import { SignInFormCookie } from './auth/login-state';
import type { ProviderIdentity } from './auth/care-oidc.strategy';
import { ConsoleGate } from './console-gate';
import { CONSOLE_PATH, SESSION_COOKIE } from './console-http';
import { ConsoleExceptionFilter } from './console.filter';
import { signInPage } from './views/pages';
import { AcceptsForm } from '../../common/http/form-body';

type Form = Record<string, unknown>;
const text = (form: Form | undefined, name: string): string => (typeof form?.[name] === 'string' ? (form[name] as string) : '');
/** The staff member's email the audit trail names (optional: empty is none). */
const STAFF_EMAIL = /^[^\s@<>]{1,64}@[^\s@<>]{1,190}$|^$/;

/** Sign-in (identity provider, or the sandbox page), the provider's callback, and sign-out. */
@ApiExcludeController()
@Public()
@UseFilters(ConsoleExceptionFilter)
@Controller('care')
export class ConsoleAuthController {
  constructor(
    private readonly gate: ConsoleGate,
    private readonly config: AppConfig,
    private readonly tokens: TokenService,
    private readonly limits: TokenRateLimits,
    private readonly signInForm: SignInFormCookie,
  ) {}

  @Get('sign-in')
  signInPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.gate.served();
    if (request.session.staff) {
      void reply.redirect('/care', 303);
      return;
    }
    const flash = request.session.flash;
    delete request.session.flash;
    // The sandbox form's token lives in a signed cookie, not the session: this anonymous page writes no session row.
    const csrf = this.gate.sandboxSignIn ? this.signInForm.issue(reply) : null;
    void reply
      .type('text/html; charset=utf-8')
      .send(signInPage({ csrf, provider: this.gate.providerConfigured, sandbox: this.gate.sandboxSignIn, error: flash }));
  }

  /** Sandbox only: the care client's credentials of SERVICE_CONFIG (checked as the token endpoint checks them, scope care). */
  @Post('sign-in')
  @AcceptsForm('fields')
  async sandboxSignIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Body() form: Form): Promise<void> {
    this.gate.served();
    if (!this.gate.sandboxSignIn) {
      void reply
        .status(404)
        .type('text/html; charset=utf-8')
        .send(signInPage({ csrf: null, provider: this.gate.providerConfigured, sandbox: false, error: 'The sandbox sign-in is not available.' }));
      return;
    }
    this.signInForm.check(request, text(form, '_csrf'));
    const clientId = text(form, 'clientId');
    const email = text(form, 'staffEmail').trim();
    // A malformed email is the form's mistake, said as such: the credentials are not checked (nor counted) for it.
    if (!STAFF_EMAIL.test(email)) {
      void reply
        .status(400)
        .type('text/html; charset=utf-8')
        .send(
          signInPage({ csrf: this.signInForm.issue(reply), provider: false, sandbox: true, error: 'Sign-in failed: The staff email is not an email address.' }),
        );
      return;
    }
    // The care client's secret is guessed here as at the token endpoint: its limits, on its counters (CONTRACT sections 3, 12).
    const wait = this.limits.attempt(request.ip, clientId);
    if (wait !== null) {
      void reply
        .status(429)
        .header('retry-after', String(wait))
        .type('text/html; charset=utf-8')
        .send(
          signInPage({ csrf: this.signInForm.issue(reply), provider: false, sandbox: true, error: `Too many sign-in attempts; try again in ${wait} seconds.` }),
        );
      return;
    }
    const partner = this.config.service.partnerByClientId(clientId);
    const valid =
      partner !== undefined &&
      (await this.tokens.issue(clientId, text(form, 'clientSecret'), 'care').then(
        () => true,
        () => false,
      ));
    if (!valid) this.limits.failed(request.ip, clientId);
    if (!partner || !valid) {
      void reply
        .status(401)
        .type('text/html; charset=utf-8')
        .send(
          signInPage({
            csrf: this.signInForm.issue(reply),
            provider: false,
            sandbox: true,
            error: 'Sign-in failed: unknown care client, wrong secret, or a client without the care scope.',
          }),
        );
      return;
    }
    await this.gate.signIn(request, {
      subject: `sandbox:${partner.clientId}`,
      email: email || null,
      name: null,
      programs: [...partner.programs],
      partnerId: partner.partnerId,
      via: 'sandbox',
    });
    void reply.redirect('/care', 303);
  }

  /** Redirects to the identity provider (state, nonce and PKCE verifier kept in a signed cookie, not in a session). */
  @Get('auth/login')
  @UseGuards(CareOidcGuard)
  login(): void {
    // Never reached: the guard answers with the redirect.
  }

  @Get('auth/callback')
  @UseGuards(CareOidcGuard)
  async callback(@Req() request: FastifyRequest & { user?: ProviderIdentity }, @Res() reply: FastifyReply): Promise<void> {
    const identity = request.user as ProviderIdentity;
    const carePartners = this.config.service.partners.filter((partner) => partner.scopes.includes('care'));
    const first = carePartners[0];
    if (!first) throw new Error('no care client in SERVICE_CONFIG: the console has no programs to show');
    // Staff see what the issuer's care clients see: the union of their programs.
    const programs = [...new Set(carePartners.flatMap((partner) => partner.programs))];
    await this.gate.signIn(request, { ...identity, programs, partnerId: first.partnerId, via: 'oidc' });
    void reply.redirect('/care', 303);
  }

  @Post('sign-out')
  @AcceptsForm('fields')
  async signOut(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.gate.served();
    if (request.session.staff) await this.gate.csrf(request);
    await request.session.destroy();
    // The session row is gone; its cookie goes too, rather than being left to be refused.
    void reply.clearCookie(SESSION_COOKIE, { path: CONSOLE_PATH });
    void reply.redirect('/care/sign-in', 303);
  }
}
