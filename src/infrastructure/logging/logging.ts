import type { IncomingMessage } from 'node:http';
import { ClsServiceManager } from 'nestjs-cls';
import type { Params } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import type { RawWithRequestId } from '../../common/http/request-id';

/** Every property that may hold plaintext of encrypted data or credentials, at any depth we log. */
const SENSITIVE_KEYS = [
  'authorization',
  'cookie',
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

/** Credentials in headers; the req/res serializers below already keep method, url and status only. */
export const REDACT_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

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
    // pino-http's req/res are the raw Node objects; their serializers keep method, url and status only.
    if (depth === 0 && (key === 'req' || key === 'res')) continue;
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

export function loggerParams(level: string): Params {
  const options: Options = {
    level,
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    formatters: { log: (object) => censorSensitive(object) as Record<string, unknown> },
    genReqId: (req: IncomingMessage) => (req as RawWithRequestId).requestId ?? 'unknown',
    quietReqLogger: true,
    mixin: () => {
      const cls = ClsServiceManager.getClsService();
      const requestId = cls.isActive() ? (cls.get('requestId') as string | undefined) : undefined;
      return requestId ? { requestId } : {};
    },
    serializers: {
      // Method, route and status only: never the body, never the query string.
      req: (req: { method?: string; url?: string; id?: string }) => ({ id: req.id, method: req.method, url: req.url?.split('?')[0] }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  };
  return { pinoHttp: capture ? [options, capture] : options };
}
