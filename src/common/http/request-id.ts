import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { REQUEST_ID_PATTERN, storeOf } from '../context/request-context';

/** A partner's correlation id, taken as the request's id when well formed (CONTRACT section 1). */
const HEADER_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The request's id (CONTRACT section 1): one per request, the body's `requestId`, else a well-formed
 * `X-Request-Id`, else a generated UUID. It is resolved here and kept in one place, the request
 * context (`requestId`), from which the envelope, the `X-Request-Id` header and the log lines read it.
 *
 * Before the body is read, the request's id is Fastify's `request.id`: `incomingRequestId`, its
 * genReqId (the header, else a generated one; a malformed header is replaced, never refused).
 * Once the body is parsed, `resolveRequestId` lets a valid body `requestId` take its place.
 */
export function incomingRequestId(raw: IncomingMessage): string {
  const header = raw.headers[REQUEST_ID_HEADER];
  return typeof header === 'string' && HEADER_ID_PATTERN.test(header) ? header : randomUUID();
}

/** The id once the body is parsed: its valid `requestId`, else the incoming one. */
export function resolveRequestId(request: FastifyRequest): string {
  const body = request.body as { requestId?: unknown } | undefined | null;
  const candidate = body && typeof body === 'object' ? body.requestId : undefined;
  return typeof candidate === 'string' && REQUEST_ID_PATTERN.test(candidate) ? candidate : request.id;
}

/** The id of the request being answered: its context store's (storeOf), or (before it is opened) Fastify's. */
export function currentRequestId(request: FastifyRequest): string {
  return storeOf(request)?.requestId ?? request.id;
}
