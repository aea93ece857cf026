import { CompactEncrypt, importJWK, JWK, CryptoKey } from 'jose';
import { EnrollmentRequest, EnrollmentRequestFactory } from './support/enrollment-factory';
import { PartnerName, startTestApp, TestApp } from './support/test-app';

const ENROLL = '/v1/programs/sandbox/enrollments';

/** The names of the report: decomposed (combining marks) and their composed (NFC) spelling. */
const DECOMPOSED = { firstName: 'Jose\u0301', middleName: 'A\u0301ngel', lastName: 'Nun\u0303ez', city: 'San Jose\u0301', addressLine1: '5 Calle Pen\u0303a' };
const COMPOSED = { firstName: 'Jos\u00e9', middleName: '\u00c1ngel', lastName: 'Nu\u00f1ez', city: 'San Jos\u00e9', addressLine1: '5 Calle Pe\u00f1a' };
type Spelling = typeof DECOMPOSED;

/**
 * CONTRACT section 6: names and address text are normalised to NFC before validation, fingerprinting
 * and storage, so a retry that spells the same names in the other Unicode form is the same payload:
 * it replays the stored answer (200, Idempotent-Replayed: true), never 422 "requestId was already
 * used with a different payload", and no second account is made.
 */
describe('Enrollment idempotency across Unicode spellings (e2e)', () => {
  let app: TestApp;
  let serviceEncKey: CryptoKey;

  beforeAll(async () => {
    app = await startTestApp('unicode-idempotency');
    const jwks = (await (await fetch(`${app.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    serviceEncKey = (await importJWK(jwks.keys.find((key) => key.use === 'enc') as JWK, 'ECDH-ES')) as CryptoKey;
  });

  afterAll(async () => {
    await app.close();
  });

  /** The request with its names and address text in one spelling; every other value the same. */
  function spelled(request: EnrollmentRequest, names: Spelling): EnrollmentRequest {
    const { city, addressLine1, ...userNames } = names;
    const userData = request.encryptedUserData as { addresses: Array<Record<string, unknown>> };
    return {
      ...request,
      encryptedUserData: { ...userData, ...userNames, addresses: [{ ...userData.addresses[0], city, addressLine1 }] },
    };
  }

  /**
   * The JSON text a partner's client would send. `escaped`: non-ASCII written as `\uXXXX` escapes,
   * as in the report (`"firstName":"Jose\u0301"`); otherwise as UTF-8 bytes.
   */
  function jsonText(body: unknown, escaped: boolean): string {
    const text = JSON.stringify(body);
    return escaped ? text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
  }

  const seal = (data: unknown) =>
    new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data))).setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM' }).encrypt(serviceEncKey);

  async function accountsOf(requestId: string): Promise<number> {
    const db = await app.db();
    try {
      const { rows } = await db.query<{ count: number }>('select count(*)::int as count from accounts where request_id = $1', [requestId]);
      return rows[0].count;
    } finally {
      await db.end();
    }
  }

  async function expectSameEnrollment(partner: PartnerName, first: string, second: string, requestId: string): Promise<void> {
    const client = app.client(partner);
    const created = await client.post(ENROLL, undefined, { rawBody: first, noRetry: true });
    expect({ status: created.status, detail: created.body.responseDetails[0] }).toEqual({
      status: 200,
      detail: { code: 0, subCode: 0, description: 'Success' },
    });
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    const retried = await client.post(ENROLL, undefined, { rawBody: second, noRetry: true });
    expect({ status: retried.status, detail: retried.body.responseDetails[0] }).toEqual({
      status: 200,
      detail: { code: 0, subCode: 0, description: 'Success' },
    });
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body).toEqual(created.body);
    expect(await accountsOf(requestId)).toBe(1);
  }

  it('a different letter is a different payload: "Nun\\u0303ez" (Nuñez) then "Núñez" answers 422/422/0 and makes nothing', async () => {
    const request = EnrollmentRequestFactory.build();
    expect('Nun\u0303ez'.normalize('NFC')).not.toBe('N\u00fa\u00f1ez');
    const client = app.client('acme');
    const created = await client.post(ENROLL, spelled(request, DECOMPOSED), { noRetry: true });
    expect(created.status).toBe(200);
    const other = await client.post(ENROLL, spelled(request, { ...COMPOSED, lastName: 'N\u00fa\u00f1ez' }), { noRetry: true });
    expect({ status: other.status, detail: other.body.responseDetails[0] }).toMatchObject({ status: 422, detail: { code: 422, subCode: 0 } });
    expect(await accountsOf(request.requestId as string)).toBe(1);
  });

  const orders: Array<[string, Spelling, Spelling]> = [
    ['decomposed (NFD) then composed (NFC)', DECOMPOSED, COMPOSED],
    ['composed (NFC) then decomposed (NFD)', COMPOSED, DECOMPOSED],
  ];

  describe.each(orders)('%s', (_order, firstSpelling, secondSpelling) => {
    it.each([
      ['acme', true],
      ['acme', false],
      ['secure', true],
    ] as Array<[PartnerName, boolean]>)('plain JSON from %s (escaped: %s): the second call replays the first answer', async (partner, escaped) => {
      const request = EnrollmentRequestFactory.build();
      await expectSameEnrollment(
        partner,
        jsonText(spelled(request, firstSpelling), escaped),
        jsonText(spelled(request, secondSpelling), escaped),
        request.requestId as string,
      );
    });

    it('JWE bodies from an encryption partner: the second call replays the first answer', async () => {
      const request = EnrollmentRequestFactory.build();
      const sealedBody = async (names: Spelling) => {
        const { encryptedUserData, ...rest } = spelled(request, names);
        return JSON.stringify({ ...rest, encryptedUserData: await seal(encryptedUserData) });
      };
      await expectSameEnrollment('secure', await sealedBody(firstSpelling), await sealedBody(secondSpelling), request.requestId as string);
    });
  });
});
