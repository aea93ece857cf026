import type { ErrorKey } from './error-catalogue';

/**
 * Whether sending the call again can succeed:
 * - `yes`: the identical call, after a pause (Retry-After when given); a state-changing call
 *   replays or completes under its requestId, never twice;
 * - `afterChange`: the call is right, something outside it must change first (a new token, the
 *   account's state, the issuer's review);
 * - `afterFix`: the same call always gets this answer; only a corrected one can succeed;
 * - `no`: nothing the partner can send will succeed.
 */
export type RetryOutlook = 'yes' | 'afterChange' | 'afterFix' | 'no';

/** What `/docs/errors` tells a partner's engineer about an entry of the catalogue. */
export interface ErrorGuidance {
  /** What makes the service answer this. */
  cause: string;
  /** What the partner should do about it. */
  action: string;
  retry: RetryOutlook;
}

const fix = (cause: string, action: string): ErrorGuidance => ({ cause, action, retry: 'afterFix' });
const transient = (cause: string, action: string): ErrorGuidance => ({ cause, action, retry: 'yes' });
const afterChange = (cause: string, action: string): ErrorGuidance => ({ cause, action, retry: 'afterChange' });
const final = (cause: string, action: string): ErrorGuidance => ({ cause, action, retry: 'no' });

const LENGTH = (field: string, range: string) =>
  fix(`${field} is shorter or longer than allowed (${range} characters, counted after Unicode NFC).`, `Send a ${field} of ${range} characters.`);
const NAME_CHARACTERS = (field: string) =>
  fix(
    `${field} holds a character outside the name set: letters A-Z and a-z, the Spanish letters Á É Í Ó Ú Ü Ñ (and lower case), space, apostrophe, hyphen and period, starting and ending with a letter, no two separators in a row.`,
    `Send ${field} with those characters only (transliterate other letters).`,
  );
const ADDRESS_CHARACTERS = (field: string) =>
  fix(
    `${field} holds a character outside the address set: letters (Spanish ones included), digits, space and # - . , ' / &.`,
    `Send ${field} with those characters only.`,
  );
const NOT_FOUND = (what: string) =>
  fix(
    `No ${what} with this identifier exists for your client and program (a typo, another partner's, or another program's).`,
    `Check the identifier and the programCode of the path.`,
  );
const ACTIVE_LIMIT = (key: string) =>
  afterChange(
    `The customer's ${key} already has as many active accounts in this program as it allows. The answer carries your most recent active enrollment of that ${key} when the date of birth matches.`,
    `Use the existing account. A new enrollment (new requestId) can succeed once one of the active accounts is closed; the identical retry replays this decline.`,
  );
const LIFETIME_LIMIT = (key: string) =>
  final(
    `The customer's ${key} has reached the number of accounts this program allows over its lifetime, closed ones included.`,
    `Do not retry: this customer cannot open another account in this program with this ${key}.`,
  );

/**
 * For each entry of the catalogue: its cause, what the partner should do, and whether a retry can
 * succeed (`/docs/errors`). Keyed like ERROR_CATALOGUE: an entry without guidance does not compile.
 */
export const ERROR_GUIDANCE = {
  MALFORMED_JSON: fix(
    'The body is not well-formed JSON, or its objects and arrays nest deeper than 32 levels (the plaintext of a JWE included).',
    'Send a well-formed JSON body.',
  ),
  MALFORMED_REQUEST: fix(
    'HTTP could not read the request: its headers together exceed 16 KiB (a bearer token that long, say), its framing is broken (a Content-Length that is not a number, or beside Transfer-Encoding), or it did not arrive in time. The connection is closed after the answer.',
    'Send a well-formed HTTP/1.1 request with smaller headers, on a new connection.',
  ),
  UNKNOWN_PROPERTY: fix(
    "The body has a property the operation does not take: a misspelt name, or one the service sets itself (status, accountCycleDay, …). The detail's field names it.",
    'Remove or rename the property named in field.',
  ),
  BODY_TOO_LARGE: fix('The body is larger than 64 KiB (10 MiB for a scan capture).', 'Send a smaller body; for a scan capture, smaller images.'),
  BODY_TOO_LARGE_10_MIB: fix('The body of a scan capture is larger than 10 MiB.', 'Send smaller images.'),
  UNSUPPORTED_MEDIA_TYPE: fix(
    'The Content-Type is not application/json, or the body is content-encoded (Content-Encoding other than identity: bodies are read as sent). The token endpoint takes only application/x-www-form-urlencoded, and answers any other body with its own 400 invalid_request.',
    'Send the body as uncompressed JSON with Content-Type: application/json.',
  ),
  ROUTE_NOT_FOUND: fix('No operation exists at this method and path.', 'Check the method and the path (the /v1 prefix included) against /openapi.json.'),
  REQUIRED_FIELD_MISSING: fix("A required field is absent or null; the detail's field names it.", 'Add the field.'),
  INVALID_FIELD: fix(
    "A value outside its allowed set or of the wrong type where no more specific code applies: two default phones, a last4SSN that differs from ssnSuffix, a business enrollment on a program without business accounts, an unknown eventType, an encryptedUserData JWE that does not decrypt with the service's key or from a client not set up for encryption, …",
    'Correct the value of the field named in the detail.',
  ),
  BAD_CURSOR_OR_LIMIT: fix(
    'after is not a cursor this service issued, or limit is not a whole number from 1 to 100.',
    "Pass nextCursor (or an event's cursor) exactly as received, and a limit from 1 to 100.",
  ),

  UNAUTHORIZED: afterChange(
    'The Authorization header is missing, or its bearer token is malformed, expired or not issued by this service.',
    'Get a new token from POST /oauth2/token (client credentials) and send it as Authorization: Bearer <token>; renew a token before its expires_in runs out.',
  ),
  INSUFFICIENT_SCOPE: afterChange(
    'The token was issued without the scope this operation needs (enrollments, users, business_profiles, identity, webhooks or care).',
    'Ask for a token with that scope; if your client may not have it, ask the issuer to grant it.',
  ),
  PROGRAM_NOT_ALLOWED: fix(
    'The programCode is not one of the programs your client is configured for.',
    'Use one of your programs; ask the issuer to add a program.',
  ),

  DOB_FORMAT: fix(
    'identifyingData.dateOfBirth is not a calendar date written YYYY-MM-DD, or is a day still to come.',
    'Send the date of birth as YYYY-MM-DD, e.g. 1990-04-01: a day that exists, today or earlier.',
  ),
  SSN_AND_SUFFIX: fix(
    'identifyingData carries both a full ssn and its last four digits (ssnSuffix or last4SSN).',
    'Send one of them: the full ssn when you have it.',
  ),
  DUPLICATE_TYPE: fix(
    'Two addresses share a type, or two phone numbers share a phoneType.',
    'Send at most one address of each type and one phone of each phoneType.',
  ),
  MULTIPLE_DEFAULT_ADDRESSES: fix(
    'More than one address has isDefault, or the default address is a mailing address (cards ship to a home or business address).',
    'Mark at most one home or business address as default; with none marked, the home address is.',
  ),
  HOME_ADDRESS_MISSING: fix('The addresses hold no address of type home.', "Add the customer's home address."),
  PHONE_MISSING: fix('The program verifies identity (KYC) and the enrollment has no phone number.', 'Add at least one phone number.'),
  MATRICULA_AND_SSN: fix('identifyingData carries a matriculaId together with ssn or last4SSN.', 'Send one identity: the Matricula ID or the SSN.'),
  SSN_REQUIRED: fix(
    'The program verifies identity (KYC) and the enrollment carries neither a full ssn nor an onboardingID of a Matricula scan capture.',
    "Send the customer's 9-digit ssn, or enroll with a Matricula scan capture.",
  ),
  INVALID_SSN: fix('ssn is not 9 digits, or ssnSuffix / last4SSN is not 4 digits.', 'Send digits only, without dashes or spaces.'),
  INVALID_ONBOARDING_ID: fix(
    'onboardingID is not a completed scan capture of this program, was already used by an enrollment, is older than 24 hours, or the program does not take Matricula enrollments.',
    'Make a new scan capture (POST /v1/kycGates/scanCapture) and enroll with its onboardingID within 24 hours.',
  ),

  INVALID_CURRENCY: fix('currency is not an ISO 4217 currency code.', 'Send a three-letter code such as USD.'),
  CURRENCY_NOT_SUPPORTED: fix('The program does not hold accounts in this currency.', "Send one of the program's currencies."),
  TERMS_OUTSIDE_WINDOW: fix(
    'termsAcceptanceDateTime is more than 720 hours away from the time of the first call with this requestId.',
    "Have the customer accept the terms again and send that time. (The identical retry of an earlier accepted call is judged at its first attempt's time.)",
  ),

  FIRST_NAME_LENGTH: LENGTH('firstName', '1 to 35'),
  LAST_NAME_LENGTH: LENGTH('lastName', '2 to 35'),
  CITY_LENGTH: LENGTH('city', '1 to 25'),
  ADDRESS_LINE1_LENGTH: LENGTH('addressLine1', '2 to 40'),
  ADDRESS_LINE2_LENGTH: LENGTH('addressLine2', 'at most 40'),
  BUSINESS_NAME_LENGTH: LENGTH('businessName', '2 to 100'),
  BUSINESS_FIELD_LENGTH: fix(
    'A businessData field has the wrong length: businessTaxID 9, businessIndustry 2 to 6, businessState 2, businessZipCode and zipCode 5 or 10.',
    'Send the field named in the detail with its length.',
  ),
  FIRST_NAME_CHARACTERS: NAME_CHARACTERS('firstName'),
  LAST_NAME_CHARACTERS: NAME_CHARACTERS('lastName'),
  MIDDLE_NAME_CHARACTERS: NAME_CHARACTERS('middleName'),
  CITY_CHARACTERS: ADDRESS_CHARACTERS('city'),
  ADDRESS_LINE1_CHARACTERS: ADDRESS_CHARACTERS('addressLine1'),
  ADDRESS_LINE2_CHARACTERS: ADDRESS_CHARACTERS('addressLine2'),
  BUSINESS_NAME_CHARACTERS: ADDRESS_CHARACTERS('businessName'),
  INVALID_PHONE: fix(
    'A phone number is not 10 digits (a business phoneNumber: 10 to 15 digits, optionally after +).',
    'Send digits only, without spaces, dashes or parentheses.',
  ),
  INVALID_EMAIL: fix('emailAddress is not an email address.', 'Send an address such as name@example.com.'),
  INVALID_STATE: fix('state (or businessState) is not a two-letter USPS state or territory code.', 'Send a code such as TX.'),
  INVALID_ZIP: fix('zipCode is not 12345 or 12345-6789.', 'Send a 5-digit ZIP code or ZIP+4 with its hyphen.'),

  BUSINESS_DATA_NOT_ALLOWED: fix('businessData is sent with an accountType other than business.', 'Send businessData only with accountType business.'),
  INVALID_BUSINESS_ZIP: fix('businessZipCode is not 12345 or 12345-6789.', 'Send a 5-digit ZIP code or ZIP+4 with its hyphen.'),
  INVALID_URL: fix(
    'url is not a web address: http:// or https:// (or no scheme), then a host name with a top-level domain or an IP address (at most 2048 characters).',
    'Send an address such as https://example.com.',
  ),
  INVALID_BUSINESS_EMAIL: fix('The business email is not an email address.', 'Send an address such as name@example.com.'),
  INVALID_BUSINESS_COUNTRY: fix('businessCountryCode is not an ISO 3166-1 alpha-2 or alpha-3 code.', 'Send a code such as US or USA.'),
  INVALID_BUSINESS_TYPE_ENROLLMENT: fix(
    'businessType is not one of the business types the API lists.',
    'Send one of the businessType values of /openapi.json, e.g. llc.',
  ),
  INVALID_PROCESSING_VOLUME: fix('averageMonthlyProcessingVolume is not a number of 0 or more.', 'Send a non-negative number (not a string).'),

  ACTIVE_SSN_LIMIT: ACTIVE_LIMIT('SSN or ITIN'),
  LIFETIME_SSN_LIMIT: LIFETIME_LIMIT('SSN or ITIN'),
  ACTIVE_PHONE_LIMIT: ACTIVE_LIMIT('default phone number'),
  LIFETIME_PHONE_LIMIT: LIFETIME_LIMIT('default phone number'),
  ACTIVE_PHONE_LIMIT_BUSINESS: ACTIVE_LIMIT('default phone number'),
  LIFETIME_PHONE_LIMIT_BUSINESS: LIFETIME_LIMIT('default phone number'),

  INVALID_BUSINESS_TYPE: fix('businessType is not one of the business types the API lists.', 'Send one of the businessType values of /openapi.json, e.g. llc.'),
  ACCOUNT_NOT_FOUND: NOT_FOUND('account'),
  BUSINESS_PROFILE_NOT_FOUND: NOT_FOUND('business profile (the account is not a business account)'),
  EVENT_NOT_FOUND: NOT_FOUND('event'),
  REQUEST_NOT_FOUND: NOT_FOUND('enrollment requestId (a call refused by validation is never recorded)'),
  PAYMENT_INSTRUMENT_NOT_FOUND: NOT_FOUND('card'),

  INVALID_ITIN: fix('itin is not 9 digits starting with 9.', 'Send the ITIN as 9 digits, without dashes.'),
  NOT_MATRICULA_ENROLLMENT: final('An ITIN can be added only to a user enrolled with a Matricula ID; this user was enrolled with an SSN.', 'Do not retry.'),
  ITIN_ALREADY_ADDED: final('This user already has an ITIN.', 'Do not retry: the ITIN stays as first added.'),

  ACCOUNT_LOCKED: afterChange(
    "The account is locked (by the issuer's care team, or a fraud block), so its users cannot be changed.",
    'Retry once the issuer has unlocked the account.',
  ),

  OFAC_HOLD: afterChange(
    "The customer's name may match a sanctions list: the account is pending (statusReason ofacReview) while the issuer reviews it.",
    'Wait for the accountUpdated webhook (or poll the account). When the issuer clears the hold, the enrollment completes as requested; the identical retry then answers the completed enrollment.',
  ),
  CARE_NOT_APPLICABLE: afterChange(
    'The care operation does not apply to the account in its current state (e.g. unlocking an account that is not locked).',
    "Read the account's state first; nothing was changed.",
  ),
  IDEMPOTENCY_PAYLOAD_MISMATCH: fix(
    'This requestId was already used with another payload (compared after decryption, key order, whitespace and Unicode normalisation aside).',
    'Send a new requestId for a new request; to learn the outcome of the first, resend its payload unchanged (or GET its request status).',
  ),
  LOCK_TIMEOUT: transient(
    'Another call on the same requestId, SSN, phone or account held its lock for longer than the service waits.',
    'Retry the identical call after a short pause; it replays or completes, never enrolls twice.',
  ),
  DEPENDENCY_UNAVAILABLE: transient(
    'The service cannot reach a dependency (its database) or is too busy to take the call now.',
    'Retry the identical call with backoff.',
  ),
  PARTNER_IN_FLIGHT_LIMIT: transient(
    'Your client has more calls running at once than the service allows a partner.',
    'Send fewer calls at once; retry after Retry-After.',
  ),
  TOO_MANY_TOKEN_REQUESTS: transient(
    'Your client asked for more tokens in a minute than the service allows.',
    'Reuse a token until shortly before it expires; retry after Retry-After.',
  ),
  TOO_MANY_WEBHOOK_CALLS: transient(
    'Your client sent more webhook test or redeliver calls in a minute than the service allows a partner.',
    'Send fewer test and redeliver calls; retry after Retry-After.',
  ),
  UNEXPECTED: final(
    'An error the service did not expect.',
    'Do not retry automatically (the API retry policy never retries a 500). Check the call with GET on the resource (or the request status of an enrollment) and tell the issuer the x-request-id of the answer.',
  ),
} as const satisfies Record<ErrorKey, ErrorGuidance>;

/** How the page words each outlook: the label of its rows and, once, what it means. */
export const RETRY_WORDING: Record<RetryOutlook, { label: string; meaning: string }> = {
  yes: { label: 'Yes, the identical call', meaning: 'send the same call again after a pause (Retry-After when the answer gives it)' },
  afterChange: { label: 'Yes, after a change', meaning: 'the call is right; it can succeed once what "what to do" names has changed' },
  afterFix: { label: 'Only corrected', meaning: 'the same call always gets this answer; correct it first' },
  no: { label: 'No', meaning: 'nothing sent again will succeed' },
};
