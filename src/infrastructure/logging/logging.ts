import { hostname } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
import { Logger, PinoLogger } from 'nestjs-pino';
import { destination as pinoDestination, pino, type DestinationStream, type Logger as PinoRoot, type LoggerOptions } from 'pino';

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
 * it holds none (the usual case, so no allocation). One walk per line: pino's wildcard redaction
 * (`*.key`, `*.*.key` for each key) walked every value once per path and cost ~14% of the CPU of a
 * token request in the bench profile.
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
  for (const [key, item] of Object.entries(value)) {
    const censored = SENSITIVE.has(key) ? CENSOR : censorSensitive(item, depth + 1);
    if (censored !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = censored;
  }
  return copy ?? value;
}

let capture: DestinationStream | undefined;

/** Sends the log lines of apps created from now on to `stream` (tests scan them for plaintext); undefined restores stdout. */
export function captureLogs(stream: DestinationStream | undefined): void {
  capture = stream;
}

/**
 * The service's one pino logger: JSON lines, the requestId of the current request on each,
 * sensitive keys censored at any depth by `censorSensitive` (headers included, should a header
 * object ever be logged: `authorization`, `cookie`, `set-cookie`). pino's path-based `redact` is
 * not used besides: a second mechanism for the same job, at ~1.2 µs a line.
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
  // pino's own default destination (stdout, asynchronous), made here so that the request lines can share it.
  const destination = capture ?? pinoDestination();
  const root = pino(options, destination);
  destinations.set(root, destination);
  return root;
}

/** The destination of each root logger (createRootLogger), for its request lines. */
const destinations = new WeakMap<PinoRoot, DestinationStream>();

/** The requestId of the request being served (the request context), which every line carries. */
function contextRequestId(): string | undefined {
  const cls = ClsServiceManager.getClsService();
  return cls.isActive() ? (cls.get('requestId') as string | undefined) : undefined;
}

/**
 * Nest's LoggerService over the root logger. nestjs-pino's Logger maps Nest's (message, context)
 * calls and its exception handlers' (message, stack) contract onto pino; it only calls the six
 * level methods of the logger it is given, which a pino Logger has with the same signatures. Its
 * LoggerModule is not used: that mounts pino-http as Nest middleware, with a child logger and an
 * AsyncLocalStorage run per request.
 */
export function nestLogger(root: PinoRoot): Logger {
  return new Logger(root as unknown as PinoLogger, {});
}

/**
 * One line per answered request, from an onResponse hook: method, path without the query
 * string, status and time; never a header or a body. Level error for 5xx, info otherwise.
 *
 * Written as the root logger writes a line (`requestLine`: the same fields, in the same order, to
 * the same destination) but without pino's general path: its mixin, the censoring walk over an
 * object that holds only these fields, and the serialisation of each nested object: that path
 * cost a replay ~12 µs of server CPU under the bench's load (five paired runs, 167 against 179 µs
 * per request). `logging.spec.ts` holds the line equal to pino's, key for key and in order.
 */
export function installRequestLogging(fastify: FastifyInstance, root: PinoRoot): void {
  const destination = destinations.get(root);
  if (!destination) throw new Error('installRequestLogging takes a logger made by createRootLogger');
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const statusCode = reply.statusCode;
    const level = statusCode >= 500 ? 'error' : 'info';
    if (root.isLevelEnabled(level)) {
      const url = request.url;
      const query = url.indexOf('?');
      destination.write(
        requestLine(root.levels.values[level] as number, Date.now(), contextRequestId(), {
          id: String(request.id),
          method: request.method,
          path: query < 0 ? url : url.slice(0, query),
          statusCode,
          responseTime: Math.round(reply.elapsedTime * 10) / 10,
        }),
      );
    }
    done();
  });
}

/** What pino writes after `"time":…` on every line of a root logger: its base bindings. */
const BINDINGS = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

interface RequestLineFields {
  id: string;
  method: string;
  path: string;
  statusCode: number;
  responseTime: number;
}

/**
 * The JSON line pino writes for `root.info({ req: { id, method, url }, res: { statusCode },
 * responseTime }, 'request completed')` (or `root.error(…, 'request errored')`): level, time, the
 * base bindings, the mixin's requestId, the fields, the message, a newline.
 */
function requestLine(level: number, time: number, requestId: string | undefined, fields: RequestLineFields): string {
  const message = level >= 50 ? 'request errored' : 'request completed';
  return (
    `{"level":${level},"time":${time}${BINDINGS}${requestId ? `,"requestId":${JSON.stringify(requestId)}` : ''}` +
    `,"req":{"id":${JSON.stringify(fields.id)},"method":${JSON.stringify(fields.method)},"url":${JSON.stringify(fields.path)}}` +
    `,"res":{"statusCode":${fields.statusCode}},"responseTime":${fields.responseTime},"msg":"${message}"}\n`
  );
}
