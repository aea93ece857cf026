import { createEnrollmentSdk, isSuccess } from 'enrollment-service-client';

export async function enrollOne(baseUrl: string, clientId: string, clientSecret: string) {
  const sdk = createEnrollmentSdk({ baseUrl, clientId, clientSecret }); // tokens cached, 503s retried
  const n = 1000 + Math.floor(Math.random() * 9000); // a new person each run: the limits decline a second account of one SSN (2/60)
  const { data } = await sdk.enroll('sandbox', {
    requestId: `readme-${Date.now()}-${n}`, // resend the same requestId to replay, never a new one
    termsAcceptanceDateTime: new Date().toISOString(),
    encryptedUserData: {
      firstName: 'José', lastName: 'Núñez',
      identifyingData: { dateOfBirth: '1990-04-01', ssn: `12345${n}` },
      addresses: [{ type: 'home', addressLine1: '100 Main St', city: 'Austin', state: 'TX', zipCode: '78701', countryCode: 'US' }],
      phoneNumbers: [{ phoneType: 'mobile', number: `512555${n}` }],
    },
  });
  if (!isSuccess(data)) throw new Error(`declined or refused: ${JSON.stringify(data?.responseDetails)}`);
  return { accountIdentifier: data!.account!.accountIdentifier, card: data!.paymentInstruments![0] };
}
