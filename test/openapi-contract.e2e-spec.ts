import * as fs from 'node:fs';
import * as path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { OpenApiResponseValidator } from './support/openapi-response-validator';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(document: Json): Array<{ path: string; method: string; op: Json }> {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Json })),
  );
}

describe('OpenAPI as a contract (issue 14)', () => {
  let app: TestApp;
  let document: Json;
  let careDocument: Json;
  let validator: OpenApiResponseValidator;
  const both = () => [document, careDocument];

  beforeAll(async () => {
    app = await startTestApp('openapi');
    document = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as Json;
    careDocument = (await (await fetch(`${app.baseUrl}/openapi-care.json`)).json()) as Json;
    validator = new OpenApiResponseValidator(document);
  });

  afterAll(async () => {
    await app.close();
  });

  it('validates as OpenAPI 3 (swagger-parser) and takes its version from package.json, both documents', async () => {
    for (const doc of both()) {
      await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
      expect(doc.openapi).toMatch(/^3\.0\./);
      expect(doc.info.version).toBe((JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version);
    }
  });

  it("keeps the care team's and operators' endpoints out of the partner's document, in /openapi-care.json", () => {
    const partnerPaths = Object.keys(document.paths as Json);
    const carePaths = Object.keys(careDocument.paths as Json);
    expect(partnerPaths.filter((p) => p.startsWith('/v1/care/') || p.startsWith('/health/') || p === '/metrics')).toEqual([]);
    expect(carePaths).toEqual(
      expect.arrayContaining(['/v1/care/accounts/{accountIdentifier}/lock', '/v1/care/webhooks/events/{eventId}', '/health/ready', '/metrics']),
    );
    expect(carePaths.every((p) => p.startsWith('/v1/care/') || p.startsWith('/health/') || p === '/metrics')).toBe(true);
    expect(Object.keys(careDocument.components.securitySchemes.oauth2.flows.clientCredentials.scopes as Json)).toEqual(['care']);
    // Each document carries only the components its operations use.
    expect(Object.keys(careDocument.components.schemas as Json)).not.toContain('CreateEnrollmentDto');
    expect(Object.keys(document.components.schemas as Json)).not.toContain('AuditTrailResponse');
  });

  it('models encryptedUserData as the object or its compact JWE, and Idempotent-Replayed as an answer header', () => {
    const enroll = document.components.schemas.CreateEnrollmentDto.properties.encryptedUserData as Json;
    expect(enroll.oneOf).toEqual([{ $ref: '#/components/schemas/EnrollmentUserDataDto' }, expect.objectContaining({ type: 'string' })]);
    const update = document.components.schemas.UpdateUserRequestDto.properties.encryptedUserData as Json;
    expect(update.oneOf[0]).toEqual({ $ref: '#/components/schemas/UpdateUserDataDto' });
    const pattern = new RegExp(enroll.oneOf[1].pattern as string);
    const example = document.paths['/v1/programs/{programCode}/enrollments'].post.requestBody.content['application/json'].examples.encrypted.value;
    expect(pattern.test(example.encryptedUserData as string)).toBe(true);
  });

  it('gives every operation a unique, hand-chosen operationId', () => {
    const ids = both()
      .flatMap(operations)
      .map(({ op }) => op.operationId as string);
    expect(ids.every((id) => typeof id === 'string' && !id.includes('Controller_'))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents every answer with a named schema and examples, a default error envelope, and an example for every request body', () => {
    const gaps: string[] = [];
    for (const { path, method, op } of both().flatMap(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.responses.default) gaps.push(`${where}: no default`);
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => p.name as string);
      for (const name of (path.match(/\{[^}]+\}/g) ?? []).map((n) => n.slice(1, -1)))
        if (!declared.includes(name)) gaps.push(`${where}: path parameter ${name} undeclared`);
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const content = (response.content ?? {}) as Record<string, Json>;
        const media = Object.values(content);
        if (media.length === 0) gaps.push(`${where} ${status}: no content`);
        for (const [type, m] of Object.entries(content)) {
          if (type === 'application/json' && !m.schema?.$ref) gaps.push(`${where} ${status}: not a named schema`);
          if (!m.examples && m.example === undefined) gaps.push(`${where} ${status}: no example`);
        }
      }
      if (op.requestBody) {
        for (const m of Object.values(op.requestBody.content as Record<string, Json>)) if (!m.examples) gaps.push(`${where}: request body without examples`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it('has every response example valid against its own schema', () => {
    const failures: string[] = [];
    for (const [doc, check] of [
      [document, validator],
      [careDocument, new OpenApiResponseValidator(careDocument)],
    ] as const) {
      for (const { path, method, op } of operations(doc)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
          const json = response.content?.['application/json'];
          if (!json) continue;
          for (const [name, listed] of Object.entries((json.examples ?? {}) as Record<string, Json>)) {
            const example = listed.$ref ? doc.components.examples[(listed.$ref as string).split('/').pop() as string] : listed;
            const errors = check.errorsOf(json.schema, example.value);
            if (errors.length) failures.push(`${method.toUpperCase()} ${path} ${status} ${name}: ${errors.join('; ')}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("lists the 400s of a request's headers on every 400 and 4XX it documents: an unknown X-Sandbox-Fault (/v1, sandbox) and headers over 16 KiB", async () => {
    const fault = await fetch(`${app.baseUrl}/v1/errors`, { headers: { 'x-sandbox-fault': 'nope' } });
    expect({ status: fault.status, detail: ((await fault.json()) as Json).responseDetails[0] }).toMatchObject({
      status: 400,
      detail: { code: 100, subCode: 5 },
    });
    const large = await fetch(`${app.baseUrl}/v1/errors`, { headers: { 'x-pad': 'x'.repeat(17 * 1024) } });
    expect({ status: large.status, detail: ((await large.json()) as Json).responseDetails[0] }).toMatchObject({
      status: 400,
      detail: { code: 100, subCode: 1, description: 'Malformed request: its headers exceed 16 KiB' },
    });
    const gaps: string[] = [];
    for (const doc of both()) {
      for (const { path, method, op } of operations(doc)) {
        for (const status of ['400', '4XX']) {
          const json = (op.responses[status] as Json | undefined)?.content?.['application/json'] as Json | undefined;
          if (json?.schema?.$ref !== '#/components/schemas/ErrorEnvelope') continue;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const triples = Object.values(json.examples as Record<string, Json>).map((listed) => {
            const { code, subCode } = (listed.$ref ? doc.components.examples[(listed.$ref as string).split('/').pop() as string] : listed).value
              .responseDetails[0];
            return `${code}/${subCode}`;
          });
          const description = op.responses[status].description as string;
          if (!triples.includes('100/1') || !description.includes('headers over 16 KiB')) gaps.push(`${where}: headers over 16 KiB`);
          if (path.startsWith('/v1/') && (!triples.includes('100/5') || !description.includes('X-Sandbox-Fault'))) gaps.push(`${where}: X-Sandbox-Fault`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });

  it('documents the HTTP 200 declines: limits (code 2) and OFAC hold (5/370) on enrollment, 5/362 on user update', () => {
    const enroll = document.paths['/v1/programs/{programCode}/enrollments'].post.responses['200'];
    expect(enroll.description).toMatch(/code 2/);
    expect(enroll.description).toMatch(/subCode 370/);
    const firstDetails = Object.values(enroll.content['application/json'].examples as Record<string, Json>).map((e) => e.value.responseDetails[0]);
    expect(firstDetails).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 5, subCode: 370 }), expect.objectContaining({ code: 2, subCode: 60 })]),
    );
    const update = document.paths['/v1/programs/{programCode}/accounts/{accountIdentifier}/users/{userIdentifier}'].put.responses['200'];
    expect(update.description).toMatch(/subCode 362/);
  });

  it('types every parameter (a generated client would type an untyped one as unknown)', () => {
    const untyped = both()
      .flatMap(operations)
      .flatMap(({ path, op }) =>
        ((op.parameters ?? []) as Json[]).map((parameter) => ({ path, name: parameter.name as string, schema: parameter.schema as Json })),
      )
      .filter(({ schema }) => schema?.type === undefined && schema?.$ref === undefined && schema?.enum === undefined);
    expect(untyped).toEqual([]);
  });

  it('names the scopes of every /v1 operation and client credentials on the token endpoint', () => {
    const schemes = document.components.securitySchemes as Json;
    expect(schemes.oauth2.flows.clientCredentials.tokenUrl).toBe('http://enrollment.test/oauth2/token');
    expect(Object.keys(schemes.oauth2.flows.clientCredentials.scopes)).toEqual(['enrollments', 'users', 'business_profiles', 'identity', 'webhooks']);
    // GET /v1/errors is public (CONTRACT section 3).
    for (const { path, op } of both()
      .flatMap(operations)
      .filter(({ path, op }) => path.startsWith('/v1/') && op.operationId !== 'listErrors')) {
      const oauth = (op.security as Json[]).find((s) => s.oauth2);
      expect([path, oauth?.oauth2.length]).toEqual([path, 1]);
    }
    expect(document.paths['/oauth2/token'].post.security).toEqual([{ clientSecretBasic: [] }]);
    // Public operations say so: an empty security list, and they answer without a token.
    const publicOperations = both()
      .flatMap(operations)
      .filter(({ op }) => Array.isArray(op.security) && op.security.length === 0);
    expect(publicOperations.map(({ op }) => op.operationId as string).sort()).toEqual(
      ['errorsPage', 'getAuthorizationServerMetadata', 'getJwks', 'healthLive', 'healthReady', 'listErrors', 'metrics'].sort(),
    );
    expect(
      both()
        .flatMap(operations)
        .filter(({ op }) => !Array.isArray(op.security)),
    ).toEqual([]);
  });

  it('serves Swagger UI under a CSP without inline script, and without keeping the token across reloads', async () => {
    const page = await fetch(`${app.baseUrl}/docs`);
    const csp = page.headers.get('content-security-policy') ?? '';
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1];
    expect(scriptSrc).toBe("'self'");
    expect(csp).toContain("default-src 'none'");
    expect(await page.text()).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\ssrc=)[^>]*>/);
    const script = await (await fetch(`${app.baseUrl}/docs/swagger-init.js`)).text();
    expect(script).toContain('persistAuthorization: false');
  });

  it('Swagger UI asks no third party (no online validator badge), names its files relative to the page (a PUBLIC_URL path prefix keeps working), and its CSS points at no missing source map', async () => {
    const html = await (await fetch(`${app.baseUrl}/docs`)).text();
    const links = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/swagger-ui-standalone-preset.js', 'docs/swagger-init.js']);
    for (const link of links) expect({ link, status: (await fetch(new URL(link, `${app.baseUrl}/docs`))).status }).toEqual({ link, status: 200 });
    const script = await (await fetch(`${app.baseUrl}/docs/swagger-init.js`)).text();
    expect(script).toContain('validatorUrl: null');
    expect(script).not.toMatch(/url: '\//);
    expect(await (await fetch(`${app.baseUrl}/docs/swagger-ui.css`)).text()).not.toContain('sourceMappingURL');
  });

  it('serves /docs with an Authorize that runs the client-credentials flow against the token URL', async () => {
    const html = await (await fetch(`${app.baseUrl}/docs`)).text();
    expect(html).toContain('docs/swagger-init.js');
    const init = await fetch(`${app.baseUrl}/docs/swagger-init.js`);
    expect(init.headers.get('content-type')).toContain('javascript');
    const script = await init.text();
    expect(script).toContain("{ url: 'openapi.json', name: 'Partner API' }");
    expect(script).toContain("{ url: 'openapi-care.json', name: 'Care and operations API' }");
    expect((await fetch(`${app.baseUrl}/docs/swagger-ui-standalone-preset.js`)).status).toBe(200);
    expect(script).toContain('initOAuth');
    // What Swagger UI sends for clientCredentials: Basic client authentication and the selected scopes.
    const basic = Buffer.from(`${PARTNERS.acme.clientId}:${PARTNERS.acme.clientSecret}`).toString('base64');
    const token = await fetch(`${app.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=enrollments%20users',
    });
    expect(token.status).toBe(200);
    expect(((await token.json()) as Json).scope).toBe('enrollments users');
  });

  it('enrolls with the documented consumer example', async () => {
    const example = document.paths['/v1/programs/{programCode}/enrollments'].post.requestBody.content['application/json'].examples.consumer.value as Json;
    const body = { ...example, requestId: `openapi-example-${Date.now()}`, termsAcceptanceDateTime: new Date().toISOString() };
    const res = await app.client('acme').post('/v1/programs/sandbox/enrollments', body);
    expect(res.status).toBe(200);
    expect(res.body.responseDetails[0]).toMatchObject({ code: 0, subCode: 0 });
  });

  describe('the e2e schema check itself', () => {
    it('reports an answer with an undocumented property or a wrong type', () => {
      const extra = validator.check(
        'GET',
        '/v1/programs/sandbox/enrollments/accounts/x',
        200,
        JSON.stringify({ requestId: 'r', responseDetails: [{ code: 0, subCode: 0, description: 'Success' }], surprise: 1 }),
      );
      expect(extra?.errors.join()).toMatch(/additional properties/);
      const wrong = validator.check(
        'GET',
        '/v1/programs/sandbox/enrollments/accounts/x',
        404,
        JSON.stringify({ requestId: 'r', responseDetails: [{ code: '10', subCode: 0, description: 'x' }] }),
      );
      expect(wrong?.errors.join()).toMatch(/must be integer/);
    });

    it('fails loudly for a documented operation answering JSON with no schema for that status', () => {
      const bare = new OpenApiResponseValidator({
        paths: { '/v1/new': { get: { operationId: 'newRoute', responses: { '200': { description: 'prose only' } } } } },
      });
      expect(bare.check('GET', '/v1/new', 200, '{}')?.errors.join()).toMatch(/no application\/json schema/);
      expect(bare.check('GET', '/v1/new', 404, '{}')?.errors.join()).toMatch(/not documented/);
      expect(bare.check('GET', '/v1/other', 200, '{}')).toBeUndefined();
    });
  });
});
