import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';
import { answerBody } from './answer';

/**
 * The success envelope at the HTTP edge, for every route (registered once, APP_INTERCEPTOR): a
 * handler's result becomes the body answerBody makes of it (resource data in the envelope, a
 * validate-only pass, a RawResponse as it is). Errors never come here: the exception filter renders
 * them. A handler that writes its own reply (`@Res()`, the care console's pages) returns nothing, and
 * nothing is rendered for it.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(map((data: unknown) => (data === undefined ? data : answerBody(reply, data))));
  }
}
