import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../common/errors/domain-error';
import { PassportAnswered, SignInRefused } from './auth/care-oidc.guard';
import { StaffNotAllowedError } from './auth/care-oidc.strategy';
import { ConsoleNotServed, SignInRequired } from './console-gate';
import { errorPage, notServedPage } from './views/pages';
import { SignInFormExpired } from './auth/login-state';

/** The console answers HTML, never the JSON envelope: every failure of its routes becomes a page. */
@Catch()
export class ConsoleExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('CareConsole');

  catch(exception: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof PassportAnswered || reply.sent) return;
    if (exception instanceof SignInRequired) {
      if (exception.ended) request.session.flash = ENDED[exception.ended];
      void reply.redirect('/care/sign-in', 303);
      return;
    }
    if (exception instanceof ConsoleNotServed) {
      void reply.status(404).type('text/html; charset=utf-8').send(notServedPage());
      return;
    }
    const staff = request.session?.staff;
    const [status, title, message] = describe(exception);
    if (status === 500)
      this.logger.error({ errorName: (exception as Error)?.name, stack: (exception as Error)?.stack?.split('\n').slice(0, 6).join('\n') }, 'console error');
    void reply
      .status(status)
      .type('text/html; charset=utf-8')
      .send(errorPage(title, message, staff, staff ? reply.generateCsrf() : undefined));
  }
}

const ENDED: Record<NonNullable<SignInRequired['ended']>, string> = {
  idle: 'Your session ended after a period of inactivity. Please sign in again.',
  lifetime: 'Your session reached its maximum length. Please sign in again.',
};

/** Fixed words: the provider's error_description (anyone can put one in a callback URL) is never shown. */
const REFUSED: Record<SignInRefused['reason'], string> = {
  state: 'This sign-in was not started in this browser, or it took too long. Start again from the sign-in page.',
  provider: 'The identity provider did not complete the sign-in. Start again from the sign-in page.',
};

function describe(exception: unknown): [number, string, string] {
  if (exception instanceof StaffNotAllowedError) {
    return [
      403,
      'Not allowed',
      exception.reason === 'group' ? 'You signed in, but you are not a member of the care staff group.' : 'Your identity could not be verified.',
    ];
  }
  if (exception instanceof SignInRefused) return [403, 'Sign-in refused', REFUSED[exception.reason]];
  const code = (exception as { code?: string })?.code;
  if (exception instanceof SignInFormExpired || code === 'FST_CSRF_INVALID_TOKEN' || code === 'FST_CSRF_MISSING_SECRET')
    return [403, 'Form expired', 'The form was missing its security token or it expired. Go back, reload the page and try again.'];
  if (exception instanceof DomainError) {
    if (exception.key === 'ACCOUNT_NOT_FOUND' || exception.key === 'PAYMENT_INSTRUMENT_NOT_FOUND')
      return [404, 'Not found', 'No such account (or card) in your programs.'];
    if (exception.key === 'CARE_NOT_APPLICABLE') return [409, 'Not applicable', 'This operation does not apply to the account in its current state.'];
    const status = exception.entry.http;
    return [status >= 500 ? 503 : status, status >= 500 ? 'Try again' : 'Not accepted', exception.detail().description];
  }
  if (exception instanceof HttpException) return [exception.getStatus(), 'Error', exception.message];
  return [500, 'Something went wrong', 'The request could not be completed. It has been logged.'];
}
