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

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  ...SENSITIVE_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
];

let capture: DestinationStream | undefined;

/** Sends the log lines of apps created from now on to `stream` (tests scan them for plaintext); undefined restores stdout. */
export function captureLogs(stream: DestinationStream | undefined): void {
  capture = stream;
}

export function loggerParams(level: string): Params {
  const options: Options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
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
