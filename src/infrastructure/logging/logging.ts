import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import { installAnswerCode } from '../../common/http/answer-code';
import { storeOf } from '../../common/context/request-context';
import { privatePath } from '../../common/http/private-path';
import { currentRequestId } from '../../common/http/request-id';
import { Logger, PinoLogger } from 'nestjs-pino';
import { destination, pino, type DestinationStream, type Logger as PinoRoot, type LoggerOptions } from 'pino';

/** Every property that may hold plaintext of encrypted data or credentials, at any depth we log. */
const SENSITIVE_KEYS = [
  'authorization',
  'cookie',
  'set-cookie',
  'client_secret',
  'clientSecret',
  'access_token',
  'password',
  'secret',
  'encryptedUserData',
  'encryptedAccountData',
  'firstName',
  'middleName',
  'lastName',
  'name',
  'dateOfBirth',
  'ssn',
  'ssnSuffix',
  'last4SSN',
  'itin',
  'matriculaId',
  'idNumber',
  'email',
  'emailAddress',
  'phoneNumbers',
  'phoneNumber',
  'number',
  'addresses',
  'address',
  'addressLine1',
  'addressLine2',
  'city',
  'zipCode',
  'businessTaxID',
  'frontImage',
  'backImage',
  'body',
];

const SENSITIVE = new Set(SENSITIVE_KEYS);
const CENSOR = '[redacted]';
/** Deeper than any object the service logs; a deeper subtree is censored whole rather than walked. */
const MAX_DEPTH = 8;

/**
 * A copy of a log object with every sensitive key censored at any depth, or the object itself when
 * it holds none (the usual case, so no allocation). pino's `formatters.log` hands it each line's
 * object: one walk per line, where pino's wildcard `redact` paths (`*.key`, `*.*.key` for each key)
 * walk every value once per path and still miss a key nested deeper than the paths listed.
 */
export function censorSensitive(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Date || ArrayBuffer.isView(value)) return value;
  if (depth >= MAX_DEPTH) return CENSOR;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const censored = censorSensitive(item, depth + 1);
      if (censored !== item) (copy ??= [...value])[i] = censored;
    });
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  // for…in over own keys rather than Object.entries: no array of pairs per object, on every log line.
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
    const item = record[key];
    const censored = SENSITIVE.has(key) ? CENSOR : censorSensitive(item, depth + 1);
    if (censored !== item) (copy ??= { ...record })[key] = censored;
  }
  return copy ?? value;
}

let capture: DestinationStream | undefined;

/** Sends the log lines of apps created from now on to `stream` (tests scan them for plaintext); undefined restores stdout. */
export function captureLogs(stream: DestinationStream | undefined): void {
  capture = stream;
}

/**
 * The service's one pino logger: JSON lines, the requestId of the current request on each (pino's
 * `mixin`), sensitive keys censored at any depth by `censorSensitive` (pino's `formatters.log`;
 * headers included, should a header object ever be logged: `authorization`, `cookie`,
 * `set-cookie`). pino's path-based `redact` is not used besides: a second mechanism for one job.
 */
export function createRootLogger(level: string): PinoRoot {
  const options: LoggerOptions = {
    level,
    formatters: { log: (object) => censorSensitive(object) as Record<string, unknown> },
    mixin: () => {
      const requestId = contextRequestId();
      return requestId ? { requestId } : {};
    },
  };
  // Asynchronous stdout (pino's documented destination): a line is written as soon as the previous
  // write has finished, so under load several lines go out in one write instead of one blocking
  // write each; pino flushes what is left synchronously when the process exits. Only a killed
  // process (SIGKILL, OOM) can lose the lines of its last write.
  return pino(options, capture ?? destination({ dest: 1, sync: false }));
}

/** The requestId of the request being served (the request context), which every line carries. */
function contextRequestId(): string | undefined {
  const cls = ClsServiceManager.getClsService();
  return cls.isActive() ? (cls.get('requestId') as string | undefined) : undefined;
}

/**
 * Nest's own start-up narration: a line per module initialised, per controller and per route
 * mapped (about ninety), and "started". At debug, not info: the start-up summary (main.ts) says
 * what an operator needs in one line.
 */
const START_UP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** nestjs-pino's Logger with Nest's start-up narration (START_UP_CONTEXTS) moved from info to debug. */
class ServiceLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) super.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}

/**
 * Nest's LoggerService over the root logger. nestjs-pino's Logger maps Nest's (message, context)
 * calls and its exception handlers' (message, stack) contract onto pino; it only calls the six
 * level methods of the logger it is given, which a pino Logger has with the same signatures. Its
 * LoggerModule is not used: that mounts pino-http as Nest middleware, with a child logger and an
 * AsyncLocalStorage run per request. Nest's start-up narration is logged at debug (ServiceLogger).
 */
export function nestLogger(root: PinoRoot): Logger {
  return new ServiceLogger(root as unknown as PinoLogger, {});
}

/** What the auth guard leaves on a request it let through (passport's `request.user`), or the token endpoint once the client authenticated: the partner's principal. */
interface AuthenticatedRequest {
  user?: { partner?: { partnerId?: string; programs?: readonly string[] } };
  params: unknown;
  body: unknown;
}

/**
 * The program the call names, in its path or else its body (scan capture, webhook test), when it is
 * one of the authenticated partner's programs; else the one the call resolved (noteCallProgram: an
 * account's, a default). An unchecked value never reaches the log: a refused path such as
 * `/v1/programs/{anything}/enrollments` is logged by its route pattern alone.
 */
function programCodeOf(request: AuthenticatedRequest): string | undefined {
  const { user, params, body } = request;
  const inPath = (params as { programCode?: unknown } | undefined)?.programCode;
  const inBody = body !== null && typeof body === 'object' ? (body as { programCode?: unknown }).programCode : undefined;
  const named = inPath ?? inBody;
  return typeof named === 'string' && user?.partner?.programs?.includes(named) ? named : storeOf(request)?.programCode;
}

/**
 * One line per answered request, from an onResponse hook, through the root logger (so with
 * `requestId`, the request's one id, and `trace_id`/`span_id` while a trace is active, from the
 * mixins): the request's method, path without the query string and route pattern; its status, and the code and
 * subCode its envelope leads with (CONTRACT section 16; kept on the request by whoever rendered it,
 * never parsed back from the body); its time in ms; the calling partner and the program (programCodeOf). Never a
 * header, a body or a query string. Level error (`request errored`) for 5xx, info
 * (`request completed`) otherwise. The line's shape is the same on every request (absent facts are
 * undefined, which pino leaves out).
 */
export function installRequestLogging(fastify: FastifyInstance, root: PinoRoot): void {
  installAnswerCode(fastify);
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const statusCode = reply.statusCode;
    if (!root.isLevelEnabled(statusCode >= 500 ? 'error' : 'info')) return done();
    const answerCode = request.answerCode;
    const authenticated = request as AuthenticatedRequest;
    const line = {
      // The request's one id (CONTRACT section 1), from its own store: the mixin's (the async context's)
      // can be another request's when requests are pipelined on one connection. No `req.id`: Fastify's
      // id is the header's even when the body's requestId took its place.
      requestId: currentRequestId(request),
      req: { method: request.method, url: privatePath(request.url.split('?', 1)[0]), route: request.routeOptions.url },
      res: { statusCode, code: answerCode?.code, subCode: answerCode?.subCode },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      partnerId: authenticated.user?.partner?.partnerId,
      programCode: programCodeOf(authenticated),
    };
    if (statusCode >= 500) root.error(line, 'request errored');
    else root.info(line, 'request completed');
    done();
  });
}
