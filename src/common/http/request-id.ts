import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { REQUEST_ID_PATTERN } from '../context/request-context';

/** The raw request carries the resolved id (the body's requestId or the generated one), read by the envelope and the error filter. */
export interface RawWithRequestId extends IncomingMessage {
  requestId?: string;
}

export function generateRequestId(raw: RawWithRequestId): string {
  const id = randomUUID();
  raw.requestId = id;
  return id;
}

/** The body's requestId when the request had a valid one, otherwise the generated id. */
export function resolveRequestId(request: FastifyRequest): string {
  const body = request.body as { requestId?: unknown } | undefined | null;
  const raw = request.raw as RawWithRequestId;
  const candidate = body && typeof body === 'object' ? body.requestId : undefined;
  const id = typeof candidate === 'string' && REQUEST_ID_PATTERN.test(candidate) ? candidate : request.id;
  raw.requestId = id;
  return id;
}

export function currentRequestId(request: FastifyRequest): string {
  return (request.raw as RawWithRequestId).requestId ?? request.id;
}
