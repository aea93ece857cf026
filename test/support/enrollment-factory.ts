import { randomBytes } from 'node:crypto';

/** A JSON-shaped enrollment request; tests read and tweak it freely. */
export type EnrollmentRequest = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

type Overrides = Record<string, unknown>;

let sequence = 0;
const runTag = randomBytes(2).readUInt16BE(0) % 1000;

function nextSerial(): number {
  sequence += 1;
  return runTag * 100_000 + (sequence % 100_000);
}

/** Unique per call: 9 digits, never starting with 9 (that would be an ITIN) nor 0. */
export function uniqueSsn(): string {
  const serial = nextSerial();
  return `${1 + (serial % 8)}${String(serial).padStart(8, '0').slice(-8)}`;
}

/** Unique per call: 9 digits starting with 9. */
export function uniqueItin(): string {
  return `9${String(nextSerial()).padStart(8, '0').slice(-8)}`;
}

/** Unique per call: ten digits, NANP-looking (area code 2xx-8xx). */
export function uniquePhone(): string {
  const serial = nextSerial();
  return `${2 + (serial % 7)}${String(serial).padStart(9, '0').slice(-9)}`;
}

export function uniqueRequestId(prefix = 'req'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep merge: objects merge, arrays and scalars replace, `undefined` removes the key. */
export function merge(base: Overrides, overrides: Overrides): Overrides {
  const out: Overrides = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete out[key];
    else if (isPlainObject(value) && isPlainObject(out[key])) out[key] = merge(out[key] as Overrides, value);
    else out[key] = value;
  }
  return out;
}

/** A valid `businessData` node (CONTRACT.md section 6). */
export function validBusinessData(overrides: Overrides = {}): Overrides {
  return merge(
    {
      businessName: 'Núñez Tacos & Co',
      businessType: 'llc',
      businessTaxID: String(nextSerial()).padStart(9, '1').slice(-9),
      businessIndustry: '722511',
      addressLine1: '200 Commerce St',
      city: 'Austin',
      businessState: 'TX',
      businessZipCode: '78701',
      businessCountryCode: 'US',
    },
    overrides,
  );
}

/** Distinctive personal values that a privacy spec then looks for in the database, the answers or the logs. */
export interface PersonalValues {
  firstName: string;
  middleName?: string;
  lastName: string;
  dateOfBirth: string;
  ssn: string;
  addressLine1: string;
  addressLine2: string;
  city: string;
  phone: string;
  email: string;
}

/** `encryptedUserData` carrying exactly those values: a default home address in Texas, a default mobile phone. */
export function personalUserData(values: PersonalValues): Overrides {
  return {
    firstName: values.firstName,
    ...(values.middleName !== undefined ? { middleName: values.middleName } : {}),
    lastName: values.lastName,
    identifyingData: { dateOfBirth: values.dateOfBirth, ssn: values.ssn },
    addresses: [
      {
        type: 'home',
        isDefault: true,
        addressLine1: values.addressLine1,
        addressLine2: values.addressLine2,
        city: values.city,
        state: 'TX',
        zipCode: '78701',
        countryCode: 'US',
      },
    ],
    phoneNumbers: [{ phoneType: 'mobile', number: values.phone, isDefault: true }],
    email: { emailAddress: values.email },
  };
}

/**
 * Builds valid enrollment requests with a unique requestId, SSN and phone per call.
 * `build({ encryptedUserData: { identifyingData: { ssn: undefined } } })` removes a field.
 */
export const EnrollmentRequestFactory = {
  build(overrides: Overrides = {}): EnrollmentRequest {
    const base: Overrides = {
      requestId: uniqueRequestId(),
      accountType: 'consumer',
      termsAcceptanceDateTime: new Date().toISOString(),
      currency: 'USD',
      encryptedUserData: {
        firstName: 'José',
        middleName: 'A',
        lastName: 'Núñez',
        identifyingData: { dateOfBirth: '1990-04-01', ssn: uniqueSsn() },
        addresses: [
          {
            type: 'home',
            isDefault: true,
            addressLine1: '100 Main St',
            addressLine2: 'Apt 4',
            city: 'Austin',
            state: 'TX',
            zipCode: '78701',
            countryCode: 'US',
          },
        ],
        phoneNumbers: [{ phoneType: 'mobile', number: uniquePhone(), isDefault: true }],
        email: { emailAddress: 'jose@example.com' },
      },
    };
    return merge(base, overrides);
  },

  /** A valid small-business (KYB) enrollment. */
  business(overrides: Overrides = {}): EnrollmentRequest {
    return EnrollmentRequestFactory.build(merge({ accountType: 'business', encryptedUserData: { businessData: validBusinessData() } }, overrides));
  },
};
