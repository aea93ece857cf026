import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The code and subCode an answer's envelope leads with: its first detail, or the catalogue row it came from. */
export interface AnswerCode {
  readonly code: number;
  readonly subCode: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The code and subCode an enveloped answer leads with (CONTRACT section 16's request line), kept
     * by whoever rendered it (the error path, the success envelope, a call's answer, a replay's stored
     * text) so the log line never parses the body. Null for an answer without an envelope (a token).
     */
    answerCode: AnswerCode | null;
  }
}

/**
 * Declares `request.answerCode` (null on every request: one shape for all, set by a plain
 * assignment). Once, on the root instance, before any route.
 */
export function installAnswerCode(fastify: FastifyInstance): void {
  if (!fastify.hasRequestDecorator('answerCode')) fastify.decorateRequest('answerCode', null);
}

/** Keeps the answer's code on its request: a reference to an object that has it, nothing copied. */
export function recordAnswerCode(request: FastifyRequest, code: AnswerCode | undefined): void {
  if (code) request.answerCode = code;
}
