import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * A request body as it arrived: its bytes (Nest's body parser keeps them, `rawBody`) and the
 * Content-Type that chose their parser. The same bytes under the same Content-Type parse to the
 * same value, so their digest names a body exactly (the idempotency replay's test of a retry).
 */
export interface RequestBytes {
  contentType: string | undefined;
  raw: Buffer | undefined;
}

export function requestBytesOf(request: FastifyRequest & { rawBody?: Buffer }): RequestBytes {
  return { contentType: request.headers['content-type'], raw: request.rawBody };
}

/** The parameter receives the request's RequestBytes, for the call that stores its answer under their digest. */
export const ArrivedBytes = createParamDecorator((_data: unknown, context: ExecutionContext): RequestBytes =>
  requestBytesOf(context.switchToHttp().getRequest()),
);
