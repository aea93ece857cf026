/**
 * The one catalogue of every code the service answers with: SERVICE.md's error tables and
 * CONTRACT.md sections 9 and 13, plus the unknown-route row the contract implies. Nothing else in
 * the code defines an HTTP status, code or subCode: services throw `DomainError('<key>')`, and a
 * key without a row here does not compile.
 */
export interface CatalogueEntry {
  readonly http: number;
  readonly code: number;
  readonly subCode: number;
  readonly description: string;
}

const row = (http: number, code: number, subCode: number, description: string): CatalogueEntry => ({
  http,
  code,
  subCode,
  description,
});

export const ERROR_CATALOGUE = {
  // Transport and request shape (contract section 1 and 9)
  MALFORMED_JSON: row(400, 100, 1, 'Malformed JSON body'),
  // What Node's HTTP parser refuses before a request exists (client-error.ts): the same row.
  MALFORMED_REQUEST: row(400, 100, 1, 'Malformed request: HTTP could not read it'),
  UNKNOWN_PROPERTY: row(400, 100, 2, 'property <property name> should not exist'),
  BODY_TOO_LARGE: row(413, 100, 3, 'Request body exceeds 64 KiB'),
  // The same row on the one route with a larger bound (CONTRACT section 6: the scan capture's images).
  BODY_TOO_LARGE_10_MIB: row(413, 100, 3, 'Request body exceeds 10 MiB'),
  UNSUPPORTED_MEDIA_TYPE: row(415, 100, 4, 'Unsupported content type; send application/json'),
  ROUTE_NOT_FOUND: row(404, 404, 0, 'Resource not found'),
  REQUIRED_FIELD_MISSING: row(400, 200, 0, '<property name> is required'),
  // A value outside its allowed set where no table row applies (two default phones, ssnSuffix ≠ last4SSN, …).
  INVALID_FIELD: row(400, 100, 5, '<property name> has an invalid value or type'),
  BAD_CURSOR_OR_LIMIT: row(400, 100, 6, 'Invalid cursor or limit'),

  // Authentication and tenancy (contract section 3)
  UNAUTHORIZED: row(401, 401, 0, 'Missing, invalid or expired access token'),
  INSUFFICIENT_SCOPE: row(403, 403, 1, 'The access token lacks the scope this operation needs'),
  PROGRAM_NOT_ALLOWED: row(403, 403, 2, 'The partner is not configured for this program'),

  // Enrollment: KYC
  DOB_FORMAT: row(400, 700, 0, 'identifyingData.dateOfBirth must be in the form YYYY-MM-DD'),
  SSN_AND_SUFFIX: row(400, 630, 0, 'Cannot pass both last4SSN and SSN'),
  DUPLICATE_TYPE: row(400, 1020, 0, 'Duplicated type is not allowed'),
  MULTIPLE_DEFAULT_ADDRESSES: row(400, 1040, 0, 'For card shipment, either a home or business address can be the default'),
  HOME_ADDRESS_MISSING: row(400, 1042, 0, 'Home address is missing'),
  PHONE_MISSING: row(400, 101, 0, 'phoneNumbers userData sections missing, check your JSON'),
  MATRICULA_AND_SSN: row(400, 630, 0, 'Cannot pass both matriculaId and ssn or last4ssn'),
  SSN_REQUIRED: row(400, 200, 0, 'ssn is required'),
  INVALID_SSN: row(400, 760, 0, 'Invalid SSN'),
  INVALID_ONBOARDING_ID: row(400, 660, 0, 'Invalid onboardingID'),

  // Enrollment: currency and terms
  INVALID_CURRENCY: row(400, 650, 0, 'Invalid Currency Code'),
  CURRENCY_NOT_SUPPORTED: row(400, 650, 430, 'This product does not support this currency'),
  TERMS_OUTSIDE_WINDOW: row(400, 620, 0, 'termsAcceptanceDateTime must be within 720 hours of the time it was submitted'),

  // User data validation: length (code 400) and invalid characters (code 640)
  FIRST_NAME_LENGTH: row(400, 400, 501, 'firstName min or max length'),
  LAST_NAME_LENGTH: row(400, 400, 502, 'lastName min or max length'),
  CITY_LENGTH: row(400, 400, 504, 'city min or max length'),
  ADDRESS_LINE1_LENGTH: row(400, 400, 505, 'addressLine1 min or max length'),
  ADDRESS_LINE2_LENGTH: row(400, 400, 506, 'addressLine2 min or max length'),
  BUSINESS_NAME_LENGTH: row(400, 400, 507, 'businessName min or max length'),
  BUSINESS_FIELD_LENGTH: row(400, 400, 0, '<property name> min or max length'),
  FIRST_NAME_CHARACTERS: row(400, 640, 501, 'firstName contains invalid characters'),
  LAST_NAME_CHARACTERS: row(400, 640, 502, 'lastName contains invalid characters'),
  MIDDLE_NAME_CHARACTERS: row(400, 640, 503, 'middleName contains invalid characters'),
  CITY_CHARACTERS: row(400, 640, 504, 'city contains invalid characters'),
  ADDRESS_LINE1_CHARACTERS: row(400, 640, 505, 'addressLine1 contains invalid characters'),
  ADDRESS_LINE2_CHARACTERS: row(400, 640, 506, 'addressLine2 contains invalid characters'),
  BUSINESS_NAME_CHARACTERS: row(400, 640, 507, 'businessName contains invalid characters'),
  INVALID_PHONE: row(400, 770, 0, 'Invalid Phone Number'),
  INVALID_EMAIL: row(400, 750, 0, 'Invalid Email Format'),
  INVALID_STATE: row(400, 780, 0, 'Invalid State'),
  INVALID_ZIP: row(400, 350, 0, 'Invalid Zip Code'),

  // Enrollment: business (KYB)
  BUSINESS_DATA_NOT_ALLOWED: row(400, 630, 0, 'businessData is only valid when accountType is business'),
  INVALID_BUSINESS_ZIP: row(400, 350, 0, 'Invalid Business Zip Code'),
  INVALID_URL: row(400, 740, 0, 'Invalid URL Format'),
  INVALID_BUSINESS_EMAIL: row(400, 750, 0, 'Invalid Email Format'),
  INVALID_BUSINESS_COUNTRY: row(400, 600, 0, 'Invalid Business Country Code'),
  INVALID_BUSINESS_TYPE_ENROLLMENT: row(400, 600, 0, 'Invalid Business Type'),
  INVALID_PROCESSING_VOLUME: row(400, 300, 0, 'Invalid Avg Monthly Processing Volume'),

  // Account limits (HTTP 200 declines, contract section 2)
  ACTIVE_SSN_LIMIT: row(200, 2, 60, 'Number of Active Accounts Exceeded'),
  LIFETIME_SSN_LIMIT: row(200, 2, 61, 'Number of Activated Accounts over Lifetime exceeded'),
  ACTIVE_PHONE_LIMIT: row(200, 2, 63, 'Number of Active Accounts Exceeded'),
  LIFETIME_PHONE_LIMIT: row(200, 2, 66, 'Number of Activated Accounts over Lifetime exceeded'),
  ACTIVE_PHONE_LIMIT_BUSINESS: row(200, 2, 63, 'Maximum number of active accounts with the same phone number'),
  LIFETIME_PHONE_LIMIT_BUSINESS: row(200, 2, 66, 'Maximum number of accounts over a lifetime with the same phone number'),

  // Business profile
  INVALID_BUSINESS_TYPE: row(400, 600, 0, 'Invalid businessType'),
  ACCOUNT_NOT_FOUND: row(404, 10, 0, 'Account Not Found'),
  BUSINESS_PROFILE_NOT_FOUND: row(404, 10, 0, 'Business profile not found'),
  EVENT_NOT_FOUND: row(404, 10, 0, 'Event Not Found'),
  REQUEST_NOT_FOUND: row(404, 10, 0, 'Request Not Found'),
  PAYMENT_INSTRUMENT_NOT_FOUND: row(404, 10, 0, 'Payment instrument not found'),

  // Identity (ITIN)
  INVALID_ITIN: row(400, 761, 0, 'Invalid ITIN'),
  NOT_MATRICULA_ENROLLMENT: row(200, 5, 380, 'An Identity can only be added to a Matricula based enrollment'),
  ITIN_ALREADY_ADDED: row(200, 5, 381, 'An ITIN has already been added to this user'),

  // User update
  ACCOUNT_LOCKED: row(200, 5, 362, 'A user profile cannot be updated for a locked account'),

  // Business declines, idempotency, locking, availability and rate limits (contract sections 9 and 13)
  OFAC_HOLD: row(200, 5, 370, 'Enrollment is held for OFAC review'),
  CARE_NOT_APPLICABLE: row(409, 5, 390, 'The care operation does not apply to the account in its current state'),
  IDEMPOTENCY_PAYLOAD_MISMATCH: row(422, 422, 0, 'requestId was already used with a different payload'),
  LOCK_TIMEOUT: row(503, 503, 1, 'Another call holding the same lock is still in progress; retry later'),
  DEPENDENCY_UNAVAILABLE: row(503, 503, 2, 'Service temporarily unavailable; retry later'),
  PARTNER_IN_FLIGHT_LIMIT: row(503, 503, 3, 'Too many calls of this partner in flight; retry later'),
  TOO_MANY_TOKEN_REQUESTS: row(429, 429, 0, 'Too many token requests; retry later'),
  TOO_MANY_WEBHOOK_CALLS: row(429, 429, 0, 'Too many webhook test or redeliver calls; retry later'),
  UNEXPECTED: row(500, 500, 0, 'Unexpected error'),
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorKey = keyof typeof ERROR_CATALOGUE;

export const SUCCESS_DETAIL = { code: 0, subCode: 0, description: 'Success' } as const;

/** The answer of a `?validateOnly=true` call that passed every check (CONTRACT section 11). */
export const VALID_DETAIL = { code: 0, subCode: 0, description: 'Valid' } as const;
