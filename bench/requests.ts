/**
 * Request builders shared by the bench and the soak: valid, unique enrollment bodies (SSN, phone,
 * email and requestId never repeat within a run) and user-update bodies.
 */

export const DATE_OF_BIRTH = '1990-04-01';

/** A structurally valid SSN (area 101-665, group 01-99, serial 0001-9999) unique for n < ~560M. */
export function ssnFor(n: number): string {
  const serial = 1 + (n % 9999);
  const group = 1 + (Math.floor(n / 9999) % 99);
  const area = 101 + Math.floor(n / (9999 * 99));
  return `${area}${String(group).padStart(2, '0')}${String(serial).padStart(4, '0')}`;
}

/** A ten-digit number in area 512 with an exchange 200-999, unique for n < 8M. */
export function phoneFor(n: number): string {
  const exchange = 200 + (Math.floor(n / 10000) % 800);
  return `512${exchange}${String(n % 10000).padStart(4, '0')}`;
}

export interface EnrollmentInput {
  requestId: string;
  ssn: string;
  phone: string;
  n: number;
  lastName?: string;
  dateOfBirth?: string;
}

export function enrollmentBody(input: EnrollmentInput): Record<string, unknown> {
  return {
    requestId: input.requestId,
    accountType: 'consumer',
    termsAcceptanceDateTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    currency: 'USD',
    encryptedUserData: {
      firstName: 'José',
      middleName: 'A',
      lastName: input.lastName ?? 'Núñez',
      identifyingData: { dateOfBirth: input.dateOfBirth ?? DATE_OF_BIRTH, ssn: input.ssn },
      addresses: [
        {
          type: 'home',
          isDefault: true,
          addressLine1: `${100 + (input.n % 9000)} Main St`,
          addressLine2: 'Apt 4',
          city: 'Austin',
          state: 'TX',
          zipCode: '78701',
          countryCode: 'US',
        },
      ],
      phoneNumbers: [{ phoneType: 'mobile', number: input.phone, isDefault: true }],
      email: { emailAddress: `user${input.n}@example.com` },
    },
  };
}

/** A user update touching the address and the email (no phone, so no limit interplay). */
export function userUpdateBody(n: number): Record<string, unknown> {
  return {
    encryptedUserData: {
      address: { type: 'home', isDefault: true, addressLine1: `${200 + (n % 9000)} Oak Ave`, city: 'Austin', state: 'TX', zipCode: '78702', countryCode: 'US' },
      email: { emailAddress: `updated${n}@example.com` },
    },
  };
}

export interface Enrolled {
  body: string;
  accountIdentifier: string;
  userIdentifier: string;
}

/** The account and user of a successful enrollment answer, or undefined for anything else. */
export function enrolledFrom(status: number, text: string, body: string): Enrolled | undefined {
  if (status !== 200) return undefined;
  try {
    const parsed = JSON.parse(text) as {
      responseDetails?: Array<{ code: number }>;
      account?: { accountIdentifier?: string; status?: string };
      user?: { userIdentifier?: string };
    };
    const accountIdentifier = parsed.account?.accountIdentifier;
    const userIdentifier = parsed.user?.userIdentifier;
    if (parsed.responseDetails?.[0]?.code !== 0 || !accountIdentifier || !userIdentifier) return undefined;
    return { body, accountIdentifier, userIdentifier };
  } catch {
    return undefined;
  }
}
