import { applyDecorators, Type } from '@nestjs/common';
import { ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorKey, SUCCESS_DETAIL, VALID_DETAIL } from '../errors/error-catalogue';
import { ErrorEnvelopeDto } from './envelope.dto';

/** Base URL of the examples (the document's server is the real one). */
export const EXAMPLE_BASE_URL = 'https://sandbox.example.com';
export const EXAMPLE_REQUEST_ID = 'req-20261121-0001';

export interface NamedExample {
  summary: string;
  value: unknown;
}
export type Examples = Record<string, NamedExample>;

/** The detail of a catalogue row as a partner sees it, docUrl included. */
export function exampleDetail(key: ErrorKey, field?: string): Record<string, unknown> {
  const { code, subCode, description } = ERROR_CATALOGUE[key];
  return { code, subCode, description, ...(field ? { field } : {}), docUrl: `${EXAMPLE_BASE_URL}/docs/errors#${code}-${subCode}` };
}

/** A whole error (or HTTP 200 decline) envelope of one catalogue row. */
export function errorExample(key: ErrorKey, payload: object = {}): Record<string, unknown> {
  return { requestId: EXAMPLE_REQUEST_ID, responseDetails: [exampleDetail(key)], ...payload };
}

export function successExample(data: object): Record<string, unknown> {
  return { requestId: EXAMPLE_REQUEST_ID, responseDetails: [{ ...SUCCESS_DETAIL }], ...data };
}

/** The answer of a `?validateOnly=true` call that passed (CONTRACT section 11). */
export const VALID_ONLY_EXAMPLE: NamedExample = {
  summary: '?validateOnly=true: every check passed; nothing stored, the requestId still unused',
  value: { requestId: EXAMPLE_REQUEST_ID, responseDetails: [{ ...VALID_DETAIL }] },
};

/**
 * The HTTP 200 answer: its named schema and an example of every kind of answer it carries
 * (success, and the business declines that share HTTP 200).
 */
export const ApiAnswer = (type: Type<unknown>, description: string, examples: Examples) => ApiOkResponse({ type, description, examples });

function rowLine(key: ErrorKey): string {
  const { http, code, subCode, description } = ERROR_CATALOGUE[key];
  return `${http}/${code}/${subCode} ${description}`;
}

/**
 * Error answers of an operation, by HTTP status, each a list of catalogue rows: the schema is the
 * error envelope, the description lists the rows and each row is an example.
 */
export function ApiErrors(byStatus: Partial<Record<number, readonly ErrorKey[]>>, notes: Partial<Record<number, string>> = {}) {
  return applyDecorators(
    ...Object.entries(byStatus).map(([status, keys]) => {
      const rows = keys ?? [];
      const examples: Examples = {};
      for (const key of rows) examples[key] = { summary: rowLine(key), value: errorExample(key) };
      const description = [notes[Number(status)], rows.map(rowLine).join('; ')].filter(Boolean).join('. ');
      return ApiResponse({ status: Number(status), type: ErrorEnvelopeDto, description, examples });
    }),
  );
}

/** Every error status an operation can meet besides its own rows (unknown route, body, availability). */
export const DEFAULT_ERROR_KEYS: readonly ErrorKey[] = [
  'MALFORMED_JSON',
  'UNKNOWN_PROPERTY',
  'BODY_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'ROUTE_NOT_FOUND',
  'DEPENDENCY_UNAVAILABLE',
  'UNEXPECTED',
];
