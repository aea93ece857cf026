import { ResponseDetail } from '../errors/domain-error';
import { SUCCESS_DETAIL, VALID_DETAIL } from '../errors/error-catalogue';
import { errorDocUrl } from '../errors/public-catalogue';

export interface Envelope {
  requestId: string;
  responseDetails: ResponseDetail[];
  [key: string]: unknown;
}

export function successEnvelope(requestId: string, data: object): Envelope {
  return { requestId, responseDetails: [{ ...SUCCESS_DETAIL }], ...data };
}

/** A validate-only call that passed: the envelope alone, its one detail "Valid". */
export function validEnvelope(requestId: string): Envelope {
  return { requestId, responseDetails: [{ ...VALID_DETAIL }] };
}

/**
 * An error or a decline (HTTP 200 with code 2 or 5 included): every detail links to its row of
 * `/docs/errors` (CONTRACT section 11). The one place that sets `docUrl`.
 */
export function errorEnvelope(requestId: string, details: ResponseDetail[], publicUrl: string, payload?: object): Envelope {
  const linked = details.map((detail) => ({ ...detail, docUrl: errorDocUrl(publicUrl, detail.code, detail.subCode) }));
  return { requestId, responseDetails: linked, ...(payload ?? {}) };
}

/**
 * The code and subCode an envelope's text leads with, read from its first characters: the envelopes
 * above serialise as `{"requestId":"…","responseDetails":[{"code":N,"subCode":M` (a requestId has no
 * quote), so a stored answer replayed as text names its code for the log line without being parsed.
 * Undefined for any other text.
 */
export function leadingCode(text: string): { code: number; subCode: number } | undefined {
  const lead = LEADING_CODE.exec(text);
  return lead ? { code: Number(lead[1]), subCode: Number(lead[2]) } : undefined;
}

const LEADING_CODE = /^\{"requestId":"[^"]*","responseDetails":\[\{"code":(\d+),"subCode":(\d+)[,}]/;
