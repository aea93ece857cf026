import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ExampleObject, HeaderObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CATALOGUE, ErrorKey } from './common/errors/error-catalogue';
import { DEFAULT_ERROR_KEYS, errorExample, Examples } from './common/openapi/api-answers';
import { AppConfig } from './config/app-config';
import { projectRoot } from './config/env';

const DESCRIPTION = `
Partner-facing enrollment API. Every JSON body carries \`requestId\` and \`responseDetails\`
(\`[{code, subCode, description, field?}]\`); success is exactly one detail \`{code: 0, subCode: 0}\`.
Business declines (account limits, OFAC hold, locked account) answer HTTP 200 with the decline first.
One id per request: the body's requestId, else an \`X-Request-Id\` of 1 to 128 characters of \`A-Za-z0-9._:-\`,
else a generated id (a malformed header is replaced, never refused); it is the envelope's requestId and the
\`X-Request-Id\` of the answer. Every /v1 answer carries \`Cache-Control: no-store\`.

Retry policy: retry only on 503 (which carries Retry-After), with the same request, at most 3 times,
after random waits of 1-1000 ms, 1000-5000 ms and 5000-30000 ms. Never retry a 400 or 500.

Authorization: \`POST /oauth2/token\` with \`grant_type=client_credentials\` (HTTP Basic or client_id +
client_secret in the form) gives a bearer token; each operation names the scopes it needs (security
scheme \`oauth2\`). "Authorize" in /docs runs that flow.

Rate limits (CONTRACT section 12): \`POST /oauth2/token\` at most TOKEN_RATE_LIMIT (default 60) requests per
minute per client id and ten times that per source address (429, code 429, subCode 0, Retry-After);
at most PARTNER_MAX_IN_FLIGHT (default 16) locked calls of one partner in flight per instance (503/503/3,
Retry-After).

Every operation documents its answers by HTTP status, each with a named schema and examples; any
other error answers the \`ErrorEnvelope\` (\`default\`).
`;

/** Response schemas that list every property they may carry: an answer with an undocumented field fails the e2e schema check. */
const CLOSED_SCHEMAS = [
  'ResponseDetail',
  'ErrorDetail',
  'ErrorEnvelope',
  'Envelope',
  'Purse',
  'Account',
  'User',
  'PaymentInstrument',
  'AccountResponse',
  'UserResponse',
  'UsersResponse',
  'BusinessData',
  'BusinessProfileResponse',
  'ScanCaptureResponse',
  'TestWebhookResponse',
  'WebhookDelivery',
  'WebhookEvent',
  'WebhookEventResponse',
  'CardSnapshot',
  'AccountSnapshot',
  'AuditEntry',
  'StaffIdentity',
  'AuditTrailResponse',
  'LiveResponse',
  'ReadyResponse',
  'TokenResponse',
  'OAuthError',
  'TokenRateLimited',
  'AuthorizationServerMetadata',
];

/** Headers of every answer (X-Request-Id) and of every 503 (Retry-After), referenced from components.headers. */
const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description: "The request's id: the body's requestId, else a well-formed X-Request-Id of the request, else a generated id",
    schema: { type: 'string' },
    example: 'req-20261121-0001',
  },
  'Retry-After': {
    description: 'On every 503: seconds to wait before resending the identical request (SERVICE.md retry policy)',
    schema: { type: 'integer' },
    example: 1,
  },
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

function rowSummary(key: ErrorKey): string {
  const { http, code, subCode, description } = ERROR_CATALOGUE[key];
  return `${http}/${code}/${subCode} ${description}`;
}

/** Each catalogue row's example once, in components.examples, referenced by every answer that lists it. */
function shareErrorExamples(document: OpenAPIObject): void {
  const shared: Record<string, ExampleObject> = {};
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      for (const response of Object.values(item[method]?.responses ?? {}) as ResponseObject[]) {
        for (const media of Object.values(response.content ?? {})) {
          for (const [name, example] of Object.entries(media.examples ?? {})) {
            if (!(name in ERROR_CATALOGUE) || '$ref' in example || !isDeepStrictEqual(example.value, errorExample(name as ErrorKey))) continue;
            shared[name] = example;
            media.examples![name] = { $ref: `#/components/examples/${name}` };
          }
        }
      }
    }
  }
  document.components = { ...document.components, examples: { ...(document.components?.examples ?? {}), ...shared } };
}

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * What the decorators cannot say once for all: every operation's `default` answer is the error
 * envelope (unknown route, body, availability), and the response views are closed.
 */
function completeDocument(document: OpenAPIObject): OpenAPIObject {
  const examples: Examples = {};
  for (const key of DEFAULT_ERROR_KEYS) examples[key] = { summary: rowSummary(key), value: errorExample(key) };
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.responses.default ??= {
        description:
          'Any other error: malformed JSON, unknown property, body too large, content type, unknown route, dependency unavailable (503 with Retry-After), unexpected (500)',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, examples } },
      };
    }
  }
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      for (const [status, response] of Object.entries(item[method]?.responses ?? {}) as Array<[string, ResponseObject]>) {
        const names = ['X-Request-Id', ...(status === '503' || status === 'default' ? ['Retry-After'] : [])];
        response.headers = { ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])), ...(response.headers ?? {}) };
      }
    }
  }
  document.components = { ...document.components, headers: { ...(document.components?.headers ?? {}), ...RESPONSE_HEADERS } };
  shareErrorExamples(document);
  for (const name of CLOSED_SCHEMAS) {
    const schema = document.components?.schemas?.[name];
    if (schema && !('$ref' in schema)) schema.additionalProperties = false;
  }
  return document;
}

function catalogueTable(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(([key, e]) => `| ${key} | ${e.http} | ${e.code} | ${e.subCode} | ${e.description} |`);
  return ['| key | HTTP | code | subCode | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function buildOpenApiDocument(app: NestFastifyApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Enrollment, User Profile and Business Profile Service')
    .setVersion(packageVersion())
    .setDescription(`${DESCRIPTION}\n\n## Error catalogue\n\n${catalogueTable()}`)
    .addServer(config.env.publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of POST /oauth2/token' }, 'bearer')
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'client_secret_basic: client_id and client_secret (token endpoint only)' }, 'clientSecretBasic')
    .addOAuth2(
      {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: `${config.env.publicUrl}/oauth2/token`,
            scopes: {
              enrollments: 'POST/GET enrollments, scan capture',
              users: 'user GET/PUT',
              business_profiles: 'business profile GET/PUT',
              identity: 'add an ITIN',
              webhooks: 'test webhooks, webhook events',
              care: "issuer's care team operations",
            },
          },
        },
      },
      'oauth2',
    );
  return completeDocument(SwaggerModule.createDocument(app, builder.build()));
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Enrollment API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-init.js"></script>
</body></html>`;

/**
 * "Authorize" runs the oauth2 client-credentials flow of the document (client id and secret sent
 * with HTTP Basic to /oauth2/token); the token is kept across reloads.
 */
const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  persistAuthorization: true,
  displayOperationId: true,
  tryItOutEnabled: true,
});
window.ui.initOAuth({ clientId: '', scopeSeparator: ' ', useBasicAuthenticationWithAccessCodeGrant: true });
`;

/**
 * `/openapi.json` from the code's decorators; `/docs` is Swagger UI served from swagger-ui-dist by
 * two fixed routes (SwaggerModule's own UI needs @fastify/static, whose ESM dependencies Jest cannot load).
 */
export function setupOpenApi(app: NestFastifyApplication, config: AppConfig): void {
  const document = buildOpenApiDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', ui: false, raw: ['json'], useGlobalPrefix: false });
  const fastify = app.getHttpAdapter().getInstance();
  const distDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'application/javascript' };
  fastify.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(DOCS_HTML));
  fastify.get('/docs/swagger-init.js', async (_request, reply) => reply.type('application/javascript').send(DOCS_INIT_JS));
  for (const [file, type] of Object.entries(assets)) {
    const body = fs.readFileSync(path.join(distDir, file));
    fastify.get(`/docs/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=86400').send(body));
  }
}
