import { ERROR_CATALOGUE, ErrorKey } from './error-catalogue';

/** One entry of `responseDetails`. `field` is the JSON path of the failed property, when there is one. */
export interface ResponseDetail {
  code: number;
  subCode: number;
  description: string;
  field?: string;
  /** `{PUBLIC_URL}/docs/errors#{code}-{subCode}`, set by the envelope on every non-success detail. */
  docUrl?: string;
}

export interface DomainErrorOptions {
  /** JSON path of the offending property (e.g. `encryptedUserData.addresses[0].city`). */
  field?: string;
  /** Replaces `<property name>` in the catalogue description. */
  property?: string;
  /** Further failures, listed after the governing one. */
  more?: DomainError[];
  /** Resource data returned beside the details (a decline that still answers with data). */
  payload?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Replaces the catalogue description (a summary detail such as `N more fields failed`). */
  description?: string;
}

/**
 * A failure with a catalogued meaning. Services throw it; the global exception filter renders it.
 * It never carries HTTP concepts beyond what the catalogue row says.
 */
export class DomainError extends Error {
  constructor(
    readonly key: ErrorKey,
    readonly options: DomainErrorOptions = {},
  ) {
    super(key);
    this.name = 'DomainError';
  }

  get entry() {
    return ERROR_CATALOGUE[this.key];
  }

  detail(): ResponseDetail {
    const entry = this.entry;
    const description =
      this.options.description ?? (this.options.property ? entry.description.replace('<property name>', this.options.property) : entry.description);
    const detail: ResponseDetail = { code: entry.code, subCode: entry.subCode, description };
    if (this.options.field) detail.field = this.options.field;
    return detail;
  }

  details(): ResponseDetail[] {
    return [this.detail(), ...(this.options.more ?? []).map((e) => e.detail())];
  }
}
