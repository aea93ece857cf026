import type { FastifyInstance, FastifyReply } from 'fastify';
import { AnswerCode, recordAnswerCode } from './answer-code';
import { successEnvelope, validEnvelope } from './envelope';
import { SUCCESS_DETAIL, VALID_DETAIL } from '../errors/error-catalogue';
import { currentRequestId } from './request-id';

export const RAW_RESPONSE = Symbol('raw-response');

/**
 * Marks a handler result that is already a complete JSON body (the token endpoint's, a stored
 * answer). Text of another type is returned as a string with its Content-Type (`@Header`), and
 * Fastify sends it as it is.
 */
export interface RawResponse {
  [RAW_RESPONSE]: true;
  /** An object, or JSON text sent as it is (a stored answer replayed byte for byte). */
  body: unknown;
  headers?: Record<string, string>;
  /** The code and subCode the body leads with, when it is an envelope (for the request's log line). */
  code?: AnswerCode;
}

export function rawResponse(body: unknown, headers?: Record<string, string>, code?: AnswerCode): RawResponse {
  return { [RAW_RESPONSE]: true, body, ...(headers ? { headers } : {}), ...(code ? { code } : {}) };
}

const VALIDATED = Symbol('validated');

/** What a handler returns for a `?validateOnly=true` call that passed: answered `{ requestId, responseDetails: [Valid] }`. */
export interface ValidatedOnly {
  [VALIDATED]: true;
}

export function validatedOnly(): ValidatedOnly {
  return { [VALIDATED]: true };
}

/**
 * The body sent for a handler's result: resource data wrapped in the success envelope, a
 * validate-only pass as the envelope alone, a RawResponse as it is (its headers set on the reply;
 * its text sent without being serialised again).
 */
export function answerBody(reply: FastifyReply, data: unknown): unknown {
  if (data && typeof data === 'object') {
    if (RAW_RESPONSE in data) {
      const raw = data as RawResponse;
      if (raw.headers) void reply.headers(raw.headers);
      // Text (a stored answer) is already the body: Fastify's serializer would quote it.
      if (typeof raw.body === 'string') void reply.serializer(sentAsIs);
      recordAnswerCode(reply.request, raw.code);
      return raw.body;
    }
    if (VALIDATED in data) {
      recordAnswerCode(reply.request, VALID_DETAIL);
      return validEnvelope(currentRequestId(reply.request));
    }
  }
  recordAnswerCode(reply.request, SUCCESS_DETAIL);
  return successEnvelope(currentRequestId(reply.request), (data ?? {}) as object);
}

function sentAsIs(text: string): string {
  return text;
}

/**
 * The success envelope at the HTTP edge, for every route: Nest hands a handler's result to Fastify's
 * `reply.send`, and Fastify's preSerialization hook (public API) passes every object sent that way
 * through answerBody before it is serialised. Nothing else sends an object: errors are sent as text
 * by the exception filter (exception.filter.ts), as are the console's pages, the OpenAPI document and
 * the token form's refusals, and Fastify gives no text, Buffer or stream to this hook. A handler that
 * writes its own reply (`@Res()`) returns nothing, and nothing is rendered for it.
 * A global Nest interceptor would do the same through an RxJS pipeline and two AsyncResource
 * bindings per request, measured in docs/design-notes.md.
 */
export function installEnvelope(fastify: FastifyInstance): void {
  fastify.addHook('preSerialization', (_request, reply, payload, done) => {
    done(null, answerBody(reply, payload));
  });
}
