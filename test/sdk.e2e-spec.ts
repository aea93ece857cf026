import * as fs from 'node:fs';
import * as path from 'node:path';
import { createEnrollmentSdk, decryptData, isSuccess } from '../client';
import { enrollOne } from '../client/examples/readme-enrollment';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { encryptionPartnerKeys, PARTNERS, startTestApp, TestApp } from './support/test-app';

const FAST = {
  ranges: [
    [1, 2],
    [1, 2],
    [1, 2],
  ] as Array<[number, number]>,
};

/** A fetch that counts what the SDK sends (and lets the schema check see every answer). */
function countingFetch() {
  const sent: Array<{ url: string; body: string | undefined }> = [];
  const impl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    sent.push({ url: request.url, body: request.body ? await request.clone().text() : undefined });
    return fetch(request);
  }) as typeof fetch;
  return { sent, impl };
}

describe('The typed SDK in client/ (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('sdk');
  });

  afterAll(async () => {
    await app.close();
  });

  it("runs the README's full enrollment, which is exactly client/examples/readme-enrollment.ts", async () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', 'client', 'README.md'), 'utf8');
    const example = fs.readFileSync(path.join(__dirname, '..', 'client', 'examples', 'readme-enrollment.ts'), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
    expect(example.trimEnd().split('\n').length).toBeLessThan(20);
    const { accountIdentifier, card } = await enrollOne(app.baseUrl, PARTNERS.acme.clientId, PARTNERS.acme.clientSecret);
    expect(typeof accountIdentifier).toBe('string');
    expect(card).toMatchObject({ status: 'active', embossedName: 'JOSE NUNEZ' });
    // A reader runs it again: a new person each time, so the account limits do not decline the second run (2/60).
    const again = await enrollOne(app.baseUrl, PARTNERS.acme.clientId, PARTNERS.acme.clientSecret);
    expect(again.accountIdentifier).not.toBe(accountIdentifier);
  });

  it('types every operation and caches the token: three calls, one token request', async () => {
    const counting = countingFetch();
    const sdk = createEnrollmentSdk({ baseUrl: app.baseUrl, ...PARTNERS.acme, fetch: counting.impl });
    const enrolled = await sdk.enroll('sandbox', EnrollmentRequestFactory.build() as never);
    expect(isSuccess(enrolled.data)).toBe(true);
    const accountIdentifier = enrolled.data!.account!.accountIdentifier;
    const account = await sdk.getAccount('sandbox', accountIdentifier);
    expect(account.data?.account?.status).toBe('normal');
    const users = await sdk.api.GET('/v1/programs/{programCode}/accounts/{accountIdentifier}/users', {
      params: { path: { programCode: 'sandbox', accountIdentifier } },
    });
    expect(users.data?.users[0].userIdentifier).toBe(enrolled.data!.user!.userIdentifier);
    expect(counting.sent.filter((s) => s.url.endsWith('/oauth2/token'))).toHaveLength(1);
  });

  it('retries a 503 three times with the same request, and never a 400', async () => {
    const counting = countingFetch();
    const sdk = createEnrollmentSdk({ baseUrl: app.baseUrl, ...PARTNERS.acme, fetch: counting.impl, retry: FAST });
    const request = EnrollmentRequestFactory.build();
    const unavailable = await sdk.enroll('sandbox', request as never, { 'x-sandbox-fault': 'unavailable' });
    expect(unavailable.response.status).toBe(503);
    expect(unavailable.error?.responseDetails[0]).toMatchObject({ code: 503, subCode: 2 });
    const attempts = counting.sent.filter((s) => s.url.endsWith('/enrollments'));
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);

    const invalid = await sdk.enroll('sandbox', { ...request, requestId: `${request.requestId}-x`, currency: 'XXQ' } as never);
    expect(invalid.response.status).toBe(400);
    expect(counting.sent.filter((s) => s.url.endsWith('/enrollments'))).toHaveLength(5);
  });

  it('seals encryptedUserData for an encryption partner and opens the JWE it receives', async () => {
    const sdk = createEnrollmentSdk({ baseUrl: app.baseUrl, ...PARTNERS.secure });
    const request = EnrollmentRequestFactory.build();
    const { data } = await sdk.enrollEncrypted('sandbox', request as never);
    expect(isSuccess(data)).toBe(true);
    const user = await decryptData<{ firstName: string; identifyingData: { ssn: string } }>(
      data!.user!.encryptedUserData!,
      (await encryptionPartnerKeys()).privateJwk,
    );
    expect(user.firstName).toBe('José');
    expect(user.identifyingData.ssn).toBe((request.encryptedUserData as { identifyingData: { ssn: string } }).identifyingData.ssn);
  });
});
