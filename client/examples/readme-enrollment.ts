import { createEnrollmentSdk, isSuccess } from 'enrollment-service-client';

export async function enrollOne(baseUrl: string, clientId: string, clientSecret: string) {
  const sdk = createEnrollmentSdk({ baseUrl, clientId, clientSecret }); // tokens cached, 503s retried
  const { data } = await sdk.enroll('sandbox', {
    requestId: `readme-${Date.now()}`, // resend the same requestId to replay, never a new one
    termsAcceptanceDateTime: new Date().toISOString(),
    encryptedUserData: {
      firstName: 'José', lastName: 'Núñez',
      identifyingData: { dateOfBirth: '1990-04-01', ssn: '123456789' },
      addresses: [{ type: 'home', addressLine1: '100 Main St', city: 'Austin', state: 'TX', zipCode: '78701', countryCode: 'US' }],
      phoneNumbers: [{ phoneType: 'mobile', number: '5125550100' }],
    },
  });
  if (!isSuccess(data)) throw new Error(`declined or refused: ${JSON.stringify(data?.responseDetails)}`);
  return { accountIdentifier: data!.account!.accountIdentifier, card: data!.paymentInstruments![0] };
}
