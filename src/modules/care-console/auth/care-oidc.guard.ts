import { ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { ConsoleNotServed } from '../console-gate';
import { CARE_OIDC, CareOidcOptions, ProviderIdentity, StaffNotAllowedError } from './care-oidc.strategy';
import { LOGIN_CALLBACK_PATH, LoginStateCookie, pkceChallenge } from './login-state';

/** Thrown once passport has answered by itself (the redirect to the provider): nothing more to send. */
export class PassportAnswered extends Error {}

/**
 * Sign-in refused: `state` is not the one this browser's login cookie holds (or there is none), or
 * the provider answered with an error or a failed code exchange. The page says which of the two
 * in fixed words: nothing the provider (or whoever forged its answer) wrote is shown.
 */
export class SignInRefused extends Error {
  constructor(readonly reason: 'state' | 'provider') {
    super(reason === 'state' ? 'sign-in state missing or not matching' : 'the identity provider did not complete the sign-in');
  }
}

/**
 * passport writes Node's response API (`statusCode`, `setHeader`, `end`), which a FastifyReply
 * does not have. This adapter collects those calls and sends them through the FastifyReply, so
 * Fastify's onSend hooks still run (the session with passport's PKCE verifier and state is saved,
 * the security headers are added).
 */
class PassportReplyAdapter {
  statusCode = 200;
  private readonly headers: Record<string, string> = {};
  readonly ended: Promise<void>;
  private markEnded!: () => void;

  constructor(private readonly reply: FastifyReply) {
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
  }

  setHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }

  end(body?: string): void {
    void this.reply
      .code(this.statusCode)
      .headers(this.headers)
      .send(body ?? '');
    this.markEnded();
  }
}

const ADAPTER = Symbol('passport-reply-adapter');

/**
 * @nestjs/passport's AuthGuard for the provider: on /care/auth/login it sets the login cookie and
 * passport redirects to the provider with its state, nonce and S256 challenge (passport answers;
 * the guard then stops the route with PassportAnswered). On the callback it clears the login
 * cookie, refuses a `state` the cookie does not hold and any provider error before passport runs,
 * then passport exchanges the code with the cookie's PKCE verifier and leaves the
 * ProviderIdentity on request.user.
 */
@Injectable()
export class CareOidcGuard extends AuthGuard(CARE_OIDC) {
  private readonly logger = new Logger('CareConsole');
  @Inject(AppConfig) private readonly config!: AppConfig;
  @Inject(LoginStateCookie) private readonly logins!: LoginStateCookie;

  getResponse(context: ExecutionContext): PassportReplyAdapter {
    const request = context.switchToHttp().getRequest<FastifyRequest & { [ADAPTER]?: PassportReplyAdapter }>();
    request[ADAPTER] ??= new PassportReplyAdapter(context.switchToHttp().getResponse<FastifyReply>());
    return request[ADAPTER];
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    // No provider configured: no strategy is registered, and these routes do not exist.
    if (this.config.env.careConsole.oauth === null) throw new ConsoleNotServed();
    const adapter = this.getResponse(context);
    // A login cookie serves one answer from the provider, whatever that answer is.
    if (isCallback(context)) this.logins.clear(context.switchToHttp().getResponse<FastifyReply>());
    // passport never calls back after a redirect: whichever comes first decides.
    const answered = adapter.ended.then(() => 'answered' as const);
    const outcome = await Promise.race([super.canActivate(context) as Promise<boolean>, answered]);
    if (outcome === 'answered') throw new PassportAnswered();
    return outcome;
  }

  override getAuthenticateOptions(context: ExecutionContext): CareOidcOptions {
    const http = context.switchToHttp();
    if (!isCallback(context)) {
      const login = this.logins.issue(http.getResponse<FastifyReply>());
      return { state: login.state, nonce: login.nonce, codeChallenge: pkceChallenge(login.verifier) };
    }
    const query = (http.getRequest<FastifyRequest>().query ?? {}) as Record<string, unknown>;
    const login = this.logins.match(http.getRequest<FastifyRequest>(), query.state);
    if (!login) throw new SignInRefused('state');
    if (query.error !== undefined || typeof query.code !== 'string') throw new SignInRefused('provider');
    return { codeVerifier: login.verifier };
  }

  override handleRequest<T = ProviderIdentity>(error: unknown, user: T | false): T {
    if (error instanceof StaffNotAllowedError) throw error;
    if (error || !user) {
      // The error's class and OAuth code only: its message may carry the provider's error_description.
      this.logger.warn({ errorName: (error as Error | null)?.name, code: (error as { code?: unknown } | null)?.code }, 'care console sign-in refused');
      throw new SignInRefused('provider');
    }
    return user;
  }
}

function isCallback(context: ExecutionContext): boolean {
  return (context.switchToHttp().getRequest<FastifyRequest>().url.split('?', 1)[0] ?? '') === LOGIN_CALLBACK_PATH;
}
