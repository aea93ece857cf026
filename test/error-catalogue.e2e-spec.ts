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

  it('GET /docs/errors says, for every entry, what causes it, what to do and whether a retry can succeed', async () => {
    const html = await (await fetch(`${app.baseUrl}/docs/errors`)).text();
    expect(html).toContain('<th>cause</th><th>what to do</th><th>can a retry succeed?</th>');
    const rows = new Map(
      [...html.matchAll(/<tr id="([^"]+)">([\s\S]*?)<\/tr>/g)].map(([, anchor, row]) => [
        anchor,
        [...(row as string).matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, text]) => text),
      ]),
    );
    expect([...rows.keys()].sort()).toEqual(
      publicCatalogue(TEST_PUBLIC_URL)
        .map((e) => `${e.code}-${e.subCode}`)
        .sort(),
    );
    for (const [anchor, cells] of rows) {
      expect({ anchor, cells: cells.length }).toEqual({ anchor, cells: 7 });
      expect({ anchor, cause: (cells[4] as string).length > 10, action: (cells[5] as string).length > 5 }).toEqual({ anchor, cause: true, action: true });
    }
    const retry = (anchor: string) => rows.get(anchor)?.[6];
    expect(retry('503-1')).toBe('Yes, the identical call');
    // SERVICE.md: "A retry is not attempted on HTTP 400 or HTTP 500."
    expect(retry('500-0')).toBe('No');
    expect(retry('422-0')).toBe('Only corrected');
    expect(retry('640-504')).toBe('Only corrected');
    expect(retry('5-370')).toBe('Yes, after a change');
    expect(retry('2-61')).toBe('No');
    expect(rows.get('422-0')?.[5]).toContain('Send a new requestId for a new request');
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

describe('OpenAPI of the partner tools (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('tools-openapi');
  });

  afterAll(async () => {
    await app.close();
  });

  it("info.version is package.json's; each tool has a unique operationId, a named response schema and its security", async () => {
    type Operation = {
      operationId: string;
      security?: unknown[];
      responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
      parameters?: Array<{ name: string; in: string }>;
    };
    const doc = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as { info: { version: string }; paths: Record<string, Record<string, Operation>> };
    expect(doc.info.version).toBe((jest.requireActual('../package.json') as { version: string }).version);
    const tools: Array<[string, string, string, boolean]> = [
      ['/v1/errors', 'get', 'ErrorCatalogueResponse', false],
      ['/v1/programs/{programCode}/enrollments/requests/{requestId}', 'get', 'EnrollmentRequestStatusResponse', true],
      ['/v1/sandbox/programs/{programCode}/data', 'delete', 'SandboxResetResponse', true],
    ];
    for (const [path, method, schema, secured] of tools) {
      const operation = doc.paths[path]?.[method];
      expect({ path, ref: operation?.responses['200']?.content?.['application/json']?.schema?.$ref }).toEqual({ path, ref: `#/components/schemas/${schema}` });
      expect({ path, secured: (operation.security ?? []).length > 0 }).toEqual({ path, secured });
    }
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, method] of [
      ['/v1/programs/{programCode}/enrollments', 'post'],
      ['/v1/programs/{programCode}/accounts/{accountIdentifier}/users/{userIdentifier}', 'put'],
      ['/v1/programs/{programCode}/accounts/{accountIdentifier}/businessProfile', 'put'],
    ]) {
      expect({ path, query: doc.paths[path][method].parameters?.some((p) => p.name === 'validateOnly' && p.in === 'query') }).toEqual({ path, query: true });
    }
  });
});
