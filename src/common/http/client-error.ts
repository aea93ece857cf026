import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Logger } from 'pino';
import { DomainError } from '../errors/domain-error';
import { ERROR_CATALOGUE } from '../errors/error-catalogue';
import { servedOverHttps, STRICT_TRANSPORT_SECURITY } from '../context/request-scope';
import { errorEnvelope } from './envelope';

/** What each of Node's parser refusals says in the detail's description (the row's, else). */
const CAUSES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: 'Malformed request: its headers exceed 16 KiB',
  ERR_HTTP_REQUEST_TIMEOUT: 'Malformed request: not received in time',
};

/**
 * Fastify's `clientErrorHandler` (its documented option): what Node's HTTP parser refuses before a
 * request exists (headers over Node's 16 KiB, broken framing such as a Content-Length that is not a
 * number, a request not received in time), answered on the socket as CONTRACT sections 1 and 2 ask
 * of every answer: the envelope of 400/100/1 (MALFORMED_REQUEST, the catalogue's malformed-request
 * row) with a generated `X-Request-Id`, `Cache-Control: no-store`, `X-Content-Type-Options: nosniff`
 * and, over https, `Strict-Transport-Security` (as every answer, request-scope.ts), and its request line in the log.
 * Fastify's default answered its own JSON with none of them. No route, no partner and no span: no
 * request was read. The connection closes after the answer (the parser cannot read on).
 */
export function clientErrorHandler(root: Logger, publicUrl: string): (error: Error & { code?: string }, socket: Socket) => void {
  const { http, code, subCode, description } = ERROR_CATALOGUE.MALFORMED_REQUEST;
  const hsts = servedOverHttps(publicUrl) ? `Strict-Transport-Security: ${STRICT_TRANSPORT_SECURITY}\r\n` : '';
  return (error, socket) => {
    // A reset connection has nobody to answer (Fastify's default does the same).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = randomUUID();
    const cause = (error.code && CAUSES[error.code]) ?? description;
    const body = JSON.stringify(errorEnvelope(requestId, [{ code, subCode, description: cause }], publicUrl));
    if (socket.writable) {
      socket.end(
        `HTTP/1.1 ${http} Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n${hsts}X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    } else {
      socket.destroy();
    }
    root.info({ requestId, res: { statusCode: http, code, subCode }, reason: error.code }, 'request completed');
  };
}

/**
 * Node's HTTP server answers an HTTP/1.1 request without a Host header itself, with a bare 400 and
 * no body (its `requireHostHeader`, on by default), before Fastify sees it. The server is created
 * with that check off (Fastify's `http` option, Node's documented server option), and
 * `installHostCheck` refuses such a request instead: the 400/100/1 envelope of every malformed
 * request, with its request id, its log line and the connection closed, as RFC 9112 section 3.2 asks.
 */
export const HTTP_SERVER_OPTIONS: ServerOptions = { requireHostHeader: false };

/** The Host check Node's server no longer makes (HTTP_SERVER_OPTIONS); after the request context's hook. */
export function installHostCheck(fastify: FastifyInstance, send: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void): void {
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // HTTP/1.0 has no Host requirement; every HTTP/1.1 request must carry one.
    if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return done();
    void reply.header('connection', 'close');
    send(new DomainError('MALFORMED_REQUEST', { description: 'Malformed request: no Host header' }), request, reply);
  });
}
