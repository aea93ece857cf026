import type { ErrorKey } from '../../../common/errors/error-catalogue';
import type { Examples } from '../../../common/openapi/api-answers';

const CONSUMER = {
  requestId: 'req-20261121-0001',
  accountType: 'consumer',
  termsAcceptanceDateTime: '2026-11-21T10:00:00Z',
  currency: 'USD',
  encryptedUserData: {
    firstName: 'José',
    lastName: 'Núñez',
    identifyingData: { dateOfBirth: '1990-04-01', ssn: '123456789' },
    addresses: [{ type: 'home', addressLine1: '100 Main St', city: 'Austin', state: 'TX', zipCode: '78701', countryCode: 'US' }],
    phoneNumbers: [{ phoneType: 'mobile', number: '5125550100' }],
    email: { emailAddress: 'jose@example.com' },
  },
};

export const ENROLLMENT_REQUEST_EXAMPLES: Examples = {
  consumer: { summary: 'A consumer enrollment with an SSN', value: CONSUMER },
  business: {
    summary: 'A small-business enrollment (program with KYB)',
    value: {
      ...CONSUMER,
      requestId: 'req-20261121-0002',
      accountType: 'business',
      encryptedUserData: {
        ...CONSUMER.encryptedUserData,
        businessData: {
          businessName: 'Acme Tacos LLC',
          businessType: 'llc',
          businessTaxID: '123456789',
          businessIndustry: '722513',
          addressLine1: '200 Commerce St',
          city: 'Austin',
          businessState: 'TX',
          businessZipCode: '78701',
          businessCountryCode: 'US',
          url: 'https://acmetacos.example.com',
          averageMonthlyProcessingVolume: 25000,
        },
      },
    },
  },
  matricula: {
    summary: 'A Matricula Consular enrollment (onboardingID from POST /v1/kycGates/scanCapture)',
    value: {
      ...CONSUMER,
      requestId: 'req-20261121-0003',
      onboardingID: '3f2b8c4e-5a61-4d0e-9b7a-1c2d3e4f5a6b',
      encryptedUserData: { ...CONSUMER.encryptedUserData, identifyingData: { dateOfBirth: '1990-04-01', matriculaId: 'A1234567' } },
    },
  },
  encrypted: {
    summary: 'An encryption partner: encryptedUserData as a JWE compact string (ECDH-ES/A256GCM) to the service enc key of /.well-known/jwks.json',
    value: {
      ...CONSUMER,
      requestId: 'req-20261121-0004',
      encryptedUserData: 'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSIsImVwayI6ey4uLn19..iv.ciphertext.tag',
    },
  },
};

/** The HTTP 400 rows of an enrollment (SERVICE.md's tables and CONTRACT section 9). */
export const ENROLLMENT_VALIDATION_ERRORS: readonly ErrorKey[] = [
  'MALFORMED_JSON',
  'UNKNOWN_PROPERTY',
  'REQUIRED_FIELD_MISSING',
  'INVALID_FIELD',
  'DOB_FORMAT',
  'SSN_AND_SUFFIX',
  'MATRICULA_AND_SSN',
  'SSN_REQUIRED',
  'INVALID_SSN',
  'INVALID_ONBOARDING_ID',
  'DUPLICATE_TYPE',
  'MULTIPLE_DEFAULT_ADDRESSES',
  'HOME_ADDRESS_MISSING',
  'PHONE_MISSING',
  'INVALID_CURRENCY',
  'CURRENCY_NOT_SUPPORTED',
  'TERMS_OUTSIDE_WINDOW',
  'FIRST_NAME_LENGTH',
  'LAST_NAME_LENGTH',
  'CITY_LENGTH',
  'ADDRESS_LINE1_LENGTH',
  'ADDRESS_LINE2_LENGTH',
  'FIRST_NAME_CHARACTERS',
  'LAST_NAME_CHARACTERS',
  'MIDDLE_NAME_CHARACTERS',
  'CITY_CHARACTERS',
  'ADDRESS_LINE1_CHARACTERS',
  'ADDRESS_LINE2_CHARACTERS',
  'INVALID_PHONE',
  'INVALID_EMAIL',
  'INVALID_STATE',
  'INVALID_ZIP',
  'BUSINESS_DATA_NOT_ALLOWED',
  'BUSINESS_NAME_LENGTH',
  'BUSINESS_FIELD_LENGTH',
  'BUSINESS_NAME_CHARACTERS',
  'INVALID_BUSINESS_ZIP',
  'INVALID_URL',
  'INVALID_BUSINESS_EMAIL',
  'INVALID_BUSINESS_COUNTRY',
  'INVALID_BUSINESS_TYPE_ENROLLMENT',
  'INVALID_PROCESSING_VOLUME',
];
