import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ClsServiceManager } from 'nestjs-cls';
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
 * One line per answered request, from an onResponse hook, through the root logger: the request's
 * id, method and path without the query string, its status and time; never a header or a body.
 * Level error (`request errored`) for 5xx, info (`request completed`) otherwise.
 */
export function installRequestLogging(fastify: FastifyInstance, root: PinoRoot): void {
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const statusCode = reply.statusCode;
    const line = {
      req: { id: String(request.id), method: request.method, url: request.url.split('?', 1)[0] },
      res: { statusCode },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (statusCode >= 500) root.error(line, 'request errored');
    else root.info(line, 'request completed');
    done();
  });
}
