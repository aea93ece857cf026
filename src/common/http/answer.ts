import type { FastifyReply } from 'fastify';
import { AnswerCode, recordAnswerCode } from './answer-code';
import { successEnvelope, validEnvelope } from './envelope';
import { SUCCESS_DETAIL, VALID_DETAIL } from '../errors/error-catalogue';
import { currentRequestId } from './request-id';

export const RAW_RESPONSE = Symbol('raw-response');

/** Marks a handler result that is already a complete body (token endpoint, replays, metrics). */
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
 * validate-only pass as the envelope alone, a RawResponse as it is (its headers set on the reply).
 * Called once per answered route by EnvelopeInterceptor.
 */
export function answerBody(reply: FastifyReply, data: unknown): unknown {
  if (data && typeof data === 'object') {
    if (RAW_RESPONSE in data) {
      const raw = data as RawResponse;
      if (raw.headers) void reply.headers(raw.headers);
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
