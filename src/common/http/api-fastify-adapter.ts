import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { answerBody } from './answer';

/**
 * Nest's Fastify adapter, with the envelope added where Nest hands a handler's result to Fastify:
 * every route that returns its answer (not those that write the reply themselves with `@Res()`)
 * goes through `reply()`, errors excepted (the exception filter sends those). This replaces a
 * global interceptor: a Nest interceptor costs two AsyncResource.bind calls and an RxJS pipeline
 * per request for what is one function call here (docs/design-notes.md).
 */
export class ApiFastifyAdapter extends FastifyAdapter {
  override reply(response: Parameters<FastifyAdapter['reply']>[0], body: unknown, statusCode?: number): ReturnType<FastifyAdapter['reply']> {
    // A raw Node response (no Fastify reply around it) is not one of our routes' answers.
    if (!('request' in response)) return super.reply(response, body, statusCode);
    return super.reply(response, answerBody(response as FastifyReply, body), statusCode);
  }
}
