import { ERROR_CATALOGUE } from '../src/common/errors/error-catalogue';
import { publicCatalogue } from '../src/common/errors/public-catalogue';
import { EnrollmentRequestFactory } from './support/enrollment-factory';
import { linked, startTestApp, TestApp, TEST_PUBLIC_URL } from './support/test-app';

interface CatalogueBody {
  requestId: string;
  responseDetails: Array<{ code: number; subCode: number; description: string }>;
  errors: Array<{ httpStatus: number; code: number; subCode: number; description: string; docUrl: string }>;
}

describe('Error catalogue and docUrl (e2e, CONTRACT section 11)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('error-catalogue');
  });

  afterAll(async () => {
    await app.close();
  });

  it('GET /v1/errors needs no token and lists every triple the catalogue can answer, once, with its docUrl', async () => {
    const res = await fetch(`${app.baseUrl}/v1/errors`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as CatalogueBody;
    expect(body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
    expect(body.errors).toEqual(publicCatalogue(TEST_PUBLIC_URL));
    const listed = new Set(body.errors.map((e) => `${e.httpStatus}/${e.code}/${e.subCode}`));
    expect(listed.size).toBe(body.errors.length);
    for (const entry of Object.values(ERROR_CATALOGUE)) expect(listed).toContain(`${entry.http}/${entry.code}/${entry.subCode}`);
    expect(body.errors).toContainEqual({
      httpStatus: 404,
      code: 404,
      subCode: 0,
      description: 'Resource not found',
      docUrl: `${TEST_PUBLIC_URL}/docs/errors#404-0`,
    });
    expect(res.headers.get('x-request-id')).toBe(body.requestId);
  });

  it('GET /docs/errors is an HTML page with one anchored row per entry, escaped, under a strict CSP', async () => {
    const res = await fetch(`${app.baseUrl}/docs/errors`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    for (const entry of publicCatalogue(TEST_PUBLIC_URL)) expect(html).toContain(`<tr id="${entry.code}-${entry.subCode}">`);
    // '<property name>' of the catalogue's descriptions is text, never markup.
    expect(html).toContain('&lt;property name&gt; is required');
    expect(html).not.toContain('<property name>');
    expect(html).not.toMatch(/<script/i);
  });

  it('every detail of an error answer carries docUrl, the validation details included', async () => {
    const invalid = EnrollmentRequestFactory.build({ encryptedUserData: { firstName: 'J<hn', lastName: 'D' } });
    const res = await app.client().post('/v1/programs/sandbox/enrollments', invalid);
    expect(res.status).toBe(400);
    expect(res.body.responseDetails.length).toBeGreaterThan(1);
    for (const detail of res.body.responseDetails) expect(detail).toEqual(linked({ ...detail, docUrl: undefined }));

    const unknownRoute = await fetch(`${app.baseUrl}/v1/nowhere`);
    expect(((await unknownRoute.json()) as CatalogueBody).responseDetails).toEqual([linked({ code: 404, subCode: 0, description: 'Resource not found' })]);
    const noToken = await app.client().get('/v1/programs/sandbox/enrollments/accounts/x', { anonymous: true });
    expect(noToken.body.responseDetails[0]).toEqual(linked({ code: 401, subCode: 0, description: expect.any(String) }));
  });

  it('a 200-status decline (OFAC hold 5/370) is not a success: its detail carries docUrl too, and so does its replay', async () => {
    const held = EnrollmentRequestFactory.build({ encryptedUserData: { lastName: 'Ofachold' } });
    const res = await app.client().post('/v1/programs/sandbox/enrollments', held);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toEqual(linked({ code: 5, subCode: 370, description: 'Enrollment is held for OFAC review' }));
  });

  it('a success carries no docUrl', async () => {
    const res = await app.client().post('/v1/programs/sandbox/enrollments', EnrollmentRequestFactory.build());
    expect(res.body.responseDetails).toEqual([{ code: 0, subCode: 0, description: 'Success' }]);
  });
});
