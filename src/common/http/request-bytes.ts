import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { RequestBytes } from '../context/request-bytes';

export type { RequestBytes };

export function requestBytesOf(request: FastifyRequest & { rawBody?: Buffer }): RequestBytes {
  return { contentType: request.headers['content-type'], raw: request.rawBody };
}

/** The parameter receives the request's RequestBytes, for the call that stores its answer under their digest. */
export const ArrivedBytes = createParamDecorator((_data: unknown, context: ExecutionContext): RequestBytes =>
  requestBytesOf(context.switchToHttp().getRequest()),
);
