import { HttpException } from '@nestjs/common';
import { DomainError } from '../errors/domain-error';
import { ERROR_CATALOGUE, ErrorKey } from '../errors/error-catalogue';
import { Envelope, errorEnvelope } from './envelope';

export interface RenderedError {
  status: number;
  body: Envelope;
  headers: Record<string, string>;
  /** True when the failure is not a catalogued client error and must be logged as such. */
  unexpected: boolean;
  /** True when the database was unavailable (503/503/2): an outage to report, not a defect. */
  unavailable?: boolean;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
}

/** Maps whatever was thrown to a catalogued error. Unknown failures become a bare 500. */
export function toDomainError(error: unknown): { domain: DomainError; unexpected: boolean; unavailable?: boolean } {
  if (error instanceof DomainError) return { domain: error, unexpected: false };
  const fastifyCode = (error as FastifyLikeError | null)?.code;
  switch (fastifyCode) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { domain: new DomainError('MALFORMED_JSON'), unexpected: false };
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { domain: new DomainError('ROUTE_NOT_FOUND'), unexpected: false };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { domain: new DomainError('BODY_TOO_LARGE'), unexpected: false };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return { domain: new DomainError('UNSUPPORTED_MEDIA_TYPE'), unexpected: false };
    default:
      break;
  }
  if (error instanceof SyntaxError && (error as FastifyLikeError).statusCode === 400) {
    return { domain: new DomainError('MALFORMED_JSON'), unexpected: false };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404 || status === 405) return { domain: new DomainError('ROUTE_NOT_FOUND'), unexpected: false };
    if (status === 413) return { domain: new DomainError('BODY_TOO_LARGE'), unexpected: false };
    if (status === 415) return { domain: new DomainError('UNSUPPORTED_MEDIA_TYPE'), unexpected: false };
    if (status === 400) return { domain: new DomainError('MALFORMED_JSON'), unexpected: false };
  }
  const statusCode = (error as FastifyLikeError | null)?.statusCode;
  if (statusCode === 413) return { domain: new DomainError('BODY_TOO_LARGE'), unexpected: false };
  if (statusCode === 415) return { domain: new DomainError('UNSUPPORTED_MEDIA_TYPE'), unexpected: false };
  if (statusCode === 400 && typeof fastifyCode === 'string' && fastifyCode.startsWith('FST_ERR_CTP')) {
    return { domain: new DomainError('MALFORMED_JSON'), unexpected: false };
  }
  if (isDatabaseUnavailable(error)) return { domain: new DomainError('DEPENDENCY_UNAVAILABLE'), unexpected: false, unavailable: true };
  return { domain: new DomainError('UNEXPECTED'), unexpected: true };
}

// 57014: a statement ran past statement_timeout (the lock wait maps it to 503/1 itself).
// 25006: a write reached a server that is (or just became) a standby after a failover.
const UNAVAILABLE_CODES = new Set([
  '57014',
  '25006',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
  '53300',
]);

/** Connection loss, shutdown or overload of PostgreSQL: the caller may retry (503 with Retry-After). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, message, name } = current as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    // TypeORM releases a query runner whose connection died; the next query on it says so.
    if (name === 'QueryRunnerAlreadyReleasedError' || name === 'QueryRunnerProviderAlreadyReleasedError') return true;
    if (
      typeof message === 'string' &&
      /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection|Query read timeout/i.test(
        message,
      )
    ) {
      return true;
    }
    current = (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * The catalogue's row of 413/100/3 that describes the route's own bound ("Request body exceeds
 * 10 MiB": every row of the triple is listed in its one public entry); a bound without a row of its
 * own is described by its size.
 */
function bodyTooLarge(limitBytes: number): DomainError {
  const size = limitBytes % MIB === 0 ? `${limitBytes / MIB} MiB` : `${Math.round(limitBytes / KIB)} KiB`;
  const description = `Request body exceeds ${size}`;
  const { code, subCode } = ERROR_CATALOGUE.BODY_TOO_LARGE;
  const row = (Object.keys(ERROR_CATALOGUE) as ErrorKey[]).find((key) => {
    const entry = ERROR_CATALOGUE[key];
    return entry.code === code && entry.subCode === subCode && entry.description === description;
  });
  return row ? new DomainError(row) : new DomainError('BODY_TOO_LARGE', { description });
}

/** `bodyLimit`: the route's own, which a body over it is described with (CONTRACT section 6: 10 MiB for the scan capture). */
export function renderError(error: unknown, requestId: string, publicUrl: string, bodyLimit?: number): RenderedError {
  const mapped = toDomainError(error);
  const { unexpected, unavailable } = mapped;
  const domain = mapped.domain.key === 'BODY_TOO_LARGE' && bodyLimit !== undefined ? bodyTooLarge(bodyLimit) : mapped.domain;
  const entry = ERROR_CATALOGUE[domain.key];
  const headers: Record<string, string> = { ...(domain.options.headers ?? {}) };
  if (entry.http === 503 && !headers['retry-after']) headers['retry-after'] = '1';
  return {
    status: entry.http,
    body: errorEnvelope(requestId, domain.details(), publicUrl, domain.options.payload),
    headers,
    unexpected,
    ...(unavailable ? { unavailable } : {}),
  };
}
