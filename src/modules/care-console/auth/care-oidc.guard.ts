import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config';
import { ConsoleNotServed } from '../console-gate';
import { CARE_OIDC, ProviderIdentity, StaffNotAllowedError } from './care-oidc.strategy';

/** Thrown once passport has answered by itself (the redirect to the provider): nothing more to send. */
export class PassportAnswered extends Error {}

/** Sign-in refused: a bad or missing `state`, an error from the provider, a failed code exchange. */
export class SignInRefused extends Error {}

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
 * @nestjs/passport's AuthGuard for the provider: on /care/auth/login it redirects to the provider
 * (passport answers; the guard then stops the route with PassportAnswered), on the callback it
 * checks state and PKCE, exchanges the code and leaves the ProviderIdentity on request.user.
 */
@Injectable()
export class CareOidcGuard extends AuthGuard(CARE_OIDC) {
  @Inject(AppConfig) private readonly config!: AppConfig;

  getResponse(context: ExecutionContext): PassportReplyAdapter {
    const request = context.switchToHttp().getRequest<FastifyRequest & { [ADAPTER]?: PassportReplyAdapter }>();
    request[ADAPTER] ??= new PassportReplyAdapter(context.switchToHttp().getResponse<FastifyReply>());
    return request[ADAPTER];
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    // No provider configured: no strategy is registered, and these routes do not exist.
    if (this.config.env.careConsole.oauth === null) throw new ConsoleNotServed();
    const adapter = this.getResponse(context);
    // passport never calls back after a redirect: whichever comes first decides.
    const answered = adapter.ended.then(() => 'answered' as const);
    const outcome = await Promise.race([super.canActivate(context) as Promise<boolean>, answered]);
    if (outcome === 'answered') throw new PassportAnswered();
    return outcome;
  }

  override handleRequest<T = ProviderIdentity>(error: unknown, user: T | false, info: unknown): T {
    if (error instanceof StaffNotAllowedError) throw error;
    if (error || !user) {
      const message =
        info && typeof info === 'object' && 'message' in info
          ? String((info as { message: unknown }).message)
          : 'the identity provider did not complete the sign-in';
      throw new SignInRefused(message);
    }
    return user;
  }
}
