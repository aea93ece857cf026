import { ResponseDetail } from '../errors/domain-error';
import { SUCCESS_DETAIL } from '../errors/error-catalogue';

export interface Envelope {
  requestId: string;
  responseDetails: ResponseDetail[];
  [key: string]: unknown;
}

export function successEnvelope(requestId: string, data: object): Envelope {
  return { requestId, responseDetails: [{ ...SUCCESS_DETAIL }], ...data };
}

export function errorEnvelope(requestId: string, details: ResponseDetail[], payload?: object): Envelope {
  return { requestId, responseDetails: details, ...(payload ?? {}) };
}
