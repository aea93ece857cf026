import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { contextHeaders, servedOverHttps } from '../context/request-scope';
import { recordAnswerCode } from './answer-code';
import { currentRequestId } from './request-id';
import { renderError, toDomainError } from './error-rendering';
import { DomainError } from '../errors/domain-error';
import { unavailableRequested } from '../context/sandbox-faults';

/** The single place that turns a failure into the envelope; unexpected ones are logged, never echoed. */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(exception, request, reply, this.logger, this.config.env.publicUrl);
  }
}

export function sendError(
  exception: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  logger: Pick<Logger, 'error' | 'warn' | 'log'>,
  publicUrl: string,
): void {
  const requestId = currentRequestId(request);
  if (request.raw.readableAborted) {
    // The client went away before its request was read (the body's read failed, ECONNRESET): nobody
    // is left to answer, and nothing in the service failed. One line, no stack.
    const error = exception as { code?: string };
    logger.log({ requestId, errorCode: error?.code, msg: 'request aborted by the client' });
    return;
  }
  // A request that matches no route is 404/404/0 whatever its body (CONTRACT section 11): the parsers
  // take no body of it, but the body limit holds while a body is read, before any parser.
  const tooLargeForNoRoute = request.is404 && toDomainError(exception).domain.key === 'BODY_TOO_LARGE';
  let rendered = renderError(tooLargeForNoRoute ? new DomainError('ROUTE_NOT_FOUND') : exception, requestId, publicUrl, request.routeOptions?.bodyLimit);
  // A sandbox call asking to find the service unavailable does, whatever else is wrong with it.
  if (rendered.status < 500 && unavailableRequested()) rendered = renderError(new DomainError('DEPENDENCY_UNAVAILABLE'), requestId, publicUrl);
  if (rendered.unavailable) {
    // An outage (every call fails alike while it lasts): a warning per call, name and code only.
    const error = exception as { name?: string; code?: string };
    logger.warn({ requestId, errorName: error?.name, errorCode: error?.code, msg: 'database unavailable' });
  } else if (rendered.unexpected) {
    const error = exception as { name?: string; code?: string; stack?: string };
    // Name, code and stack only: a message may quote SQL parameters or payload values.
    logger.error({ requestId, errorName: error?.name, errorCode: error?.code, stack: error?.stack?.split('\n').slice(1, 8).join('\n') }, 'unexpected error');
  }
  if (reply.sent) return;
  recordAnswerCode(request, rendered.body.responseDetails[0]);
  // Fastify's URL errors answer before any hook (contextHeaders' onSend) runs.
  void reply
    .status(rendered.status)
    .headers({ ...contextHeaders(request, servedOverHttps(publicUrl)), ...rendered.headers, 'content-type': 'application/json; charset=utf-8' })
    .send(JSON.stringify(rendered.body));
}
