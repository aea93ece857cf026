import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { addRouteHooks, isRoute } from '../../common/http/route-hooks';
import { FORM_MEDIA_TYPE } from '../../common/http/form-body';
import { mediaType } from '../../common/http/media-type';
import { isEncodedBody } from '../../common/http/content-encoding';
import { TOKEN_PATH } from '../../common/auth/token-path';
import { currentRequestId, resolveRequestId } from '../../common/http/request-id';
import { basicCredentials, ClientCredentials } from './client-credentials';
import { DomainError } from '../../common/errors/domain-error';
import { unavailableRequested } from '../../common/context/sandbox-faults';

/** CONTRACT section 3: a longer client_id is refused before it reaches a limiter, a cache or scrypt. */
export const MAX_CLIENT_ID_LENGTH = 128;

/** The token request's parameters, each exactly one string (RFC 6749 §3.2: none given twice). */
export type TokenForm = Readonly<Partial<Record<'grant_type' | 'client_id' | 'client_secret' | 'scope', string>>>;

/**
 * The token request as the route's hooks parsed it, once: the strict form, the HTTP Basic
 * credentials if any, and the client id it names (Basic first, else the form's). It is the body the
 * rate limiter and the handler see.
 */
export interface TokenRequest {
  readonly form: TokenForm;
  readonly basic: ClientCredentials | undefined;
  readonly clientId: string | undefined;
}

/** Why a token request is refused with 400 invalid_request before anything else looks at it. */
export class InvalidTokenRequest extends Error {}

/** Whether the Content-Type is the form's media type (parameters such as `;charset=UTF-8` allowed, another charset not). */
export function isFormMediaType(contentType: string | undefined): boolean {
  const media = mediaType(contentType);
  return media?.type === FORM_MEDIA_TYPE && media.utf8;
}

/**
 * Parses the form's bytes strictly, instead of the lenient parser's object (where a repeated
 * parameter becomes an array and a bad %-escape stays as sent): UTF-8, every escape valid, every
 * parameter at most once. Unknown parameters are kept and ignored (RFC 6749 §3.2).
 */
export function parseTokenForm(raw: Buffer | undefined): Record<string, string> {
  const form: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!raw || raw.length === 0) return form;
  if (!isUtf8(raw)) throw new InvalidTokenRequest('The form is not UTF-8');
  for (const pair of raw.toString('utf8').split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const decodedName = formDecode(equals < 0 ? pair : pair.slice(0, equals));
    const decodedValue = equals < 0 ? '' : formDecode(pair.slice(equals + 1));
    if (Object.prototype.hasOwnProperty.call(form, decodedName)) throw new InvalidTokenRequest(`Parameter given more than once: ${decodedName.slice(0, 40)}`);
    form[decodedName] = decodedValue;
  }
  return form;
}

/** One form-urlencoded name or value: `+` is a space, every %-escape valid UTF-8 (most parameters have neither). */
function formDecode(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new InvalidTokenRequest('The form cannot be parsed');
  }
}

/** The token request of a form and an Authorization header; a client id (form or Basic) longer than MAX_CLIENT_ID_LENGTH is refused. */
export function tokenRequestOf(form: Record<string, string>, authorization: string | undefined): TokenRequest {
  const basic = basicCredentials(authorization);
  // A form client_id beside Basic may name the client again (RFC 6749 section 3.2.1), never another one:
  // that would be two client identities in one request (section 2.3).
  if (basic && form.client_id !== undefined && form.client_id !== basic.id)
    throw new InvalidTokenRequest('client_id names another client than the Basic header');
  const clientId = basic ? basic.id : form.client_id || undefined;
  if (clientId !== undefined && clientId.length > MAX_CLIENT_ID_LENGTH)
    throw new InvalidTokenRequest(`client_id is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  return { form, basic, clientId };
}

function invalidRequest(reply: FastifyReply, requestId: string, description: string): FastifyReply {
  return reply
    .status(400)
    .header('x-request-id', requestId)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify({ error: 'invalid_request', error_description: description }));
}

/**
 * The token route's own hooks, installed before its rate limiter (CONTRACT section 3): a body of
 * another media type, or declared larger than the server's body limit, is refused before Fastify
 * parses it (so malformed JSON is not the envelope's 400, nor a large form its 413), the form is then parsed strictly and its TokenRequest replaces the body the limiter and the handler see,
 * and every answer of the route, errors included, carries RFC 6749's `Pragma: no-cache` (its
 * `Cache-Control: no-store` is every token-path answer's, request-scope.ts's contextHeaders).
 */
export function installTokenFormChecks(fastify: FastifyInstance, send: (error: unknown, request: FastifyRequest, reply: FastifyReply) => void): void {
  // Callback-style hooks: an async hook costs a promise per request; a hook that answers does not call done.
  // A declared length over the server's body limit is refused here, in the RFC 6749 form, before
  // Fastify's parser would answer 413 with the envelope (CONTRACT section 3).
  const bodyLimit = fastify.initialConfig.bodyLimit ?? Number.POSITIVE_INFINITY;
  // The sandbox's `X-Sandbox-Fault: unavailable` answers 503/503/2 before anything else is judged
  // (CONTRACT section 10), so it goes before the form's own refusals too.
  const refuse = (request: FastifyRequest, reply: FastifyReply, requestId: string, description: string) => {
    if (unavailableRequested()) send(new DomainError('DEPENDENCY_UNAVAILABLE'), request, reply);
    else invalidRequest(reply, requestId, description);
  };
  const tooLarge = `The body is larger than ${bodyLimit} bytes`;
  const checkMediaType = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const refusal = !isFormMediaType(request.headers['content-type'])
      ? `The body must be ${FORM_MEDIA_TYPE}`
      : isEncodedBody(request.headers)
        ? 'The body must not be content-encoded'
        : Number(request.headers['content-length'] ?? 0) > bodyLimit
          ? tooLarge
          : undefined;
    if (refusal === undefined) return done();
    refuse(request, reply, resolveRequestId(request), refusal);
  };
  const parseForm = (request: FastifyRequest & { rawBody?: Buffer }, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    let parsed: TokenRequest;
    try {
      parsed = tokenRequestOf(parseTokenForm(request.rawBody), request.headers.authorization);
    } catch (error) {
      if (!(error instanceof InvalidTokenRequest)) return done(error as Error);
      refuse(request, reply, currentRequestId(request), error.message);
      return;
    }
    request.body = parsed;
    done();
  };
  const noCache = (_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    void reply.header('pragma', 'no-cache');
    done(null, payload);
  };
  addRouteHooks(fastify, (route) => isRoute(route, 'POST', TOKEN_PATH), [
    { name: 'onRequest', hook: checkMediaType },
    { name: 'preValidation', hook: parseForm },
    { name: 'onSend', hook: noCache },
  ]);
  // A chunked form (no Content-Length) passes the check above and fails only as it grows past the
  // limit while Fastify reads it. Fastify hands that to the route's error handler (its documented
  // `errorHandler` route option), which answers it in the RFC 6749 form; any other failure goes on
  // to the app's (`send`), as on every route.
  fastify.addHook('onRoute', (route) => {
    if (!isRoute(route, 'POST', TOKEN_PATH)) return;
    route.errorHandler = (error, request, reply) => {
      const code = (error as { code?: string }).code;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return refuse(request, reply, currentRequestId(request), tooLarge);
      send(error, request, reply);
    };
  });
}
