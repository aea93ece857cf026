import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { ExampleObject, HeaderObject, OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorKey } from './common/errors/error-catalogue';
import { DEFAULT_ERROR_KEYS, errorExample, Examples } from './common/openapi/api-answers';
import { AppConfig } from './config/app-config';
import { projectRoot } from './config/env';
import { ENROLLMENT_POINTS } from './modules/enrollment/services/enrollment-points';
import { TOKEN_PATH } from './common/auth/token-path';

const DESCRIPTION = `
Partner-facing enrollment API. Every JSON body carries \`requestId\` and \`responseDetails\`
(\`[{code, subCode, description, field?}]\`); success is exactly one detail \`{code: 0, subCode: 0}\`.
Business declines (account limits, OFAC hold, locked account) answer HTTP 200 with the decline first.
One id per request: the body's requestId, else an \`X-Request-Id\` of 1 to 128 characters of \`A-Za-z0-9._:-\`,
else a generated id (a malformed header is replaced, never refused); it is the envelope's requestId and the
\`X-Request-Id\` of the answer. Every /v1 answer carries \`Cache-Control: no-store\`.

Field rules: each request property's schema states the rules the service checks (minLength, maxLength,
pattern, format, enum); what a schema cannot say is in the property's description. The service puts every
string of a body in Unicode NFC before checking it, so lengths and patterns apply to the NFC form (\`é\` is one
character, sent composed or as \`e\` and a combining accent), and a variation selector (U+FE0E, U+FE0F) after a
character is not counted in a length.

Retry policy: retry only on 503 (which carries Retry-After), with the same request, at most 3 times,
after random waits of 1-1000 ms, 1000-5000 ms and 5000-30000 ms. Never retry a 400 or 500.

Authorization: \`POST /oauth2/token\` with \`grant_type=client_credentials\` (HTTP Basic or client_id +
client_secret in the form) gives a bearer token; each operation names the scopes it needs (security
scheme \`oauth2\`). "Authorize" in /docs runs that flow.

Rate limits: \`POST /oauth2/token\` takes a limited number of requests a minute per client id (60 in the
sandbox) and ten times that per source address; beyond either it answers 429 (code 429, subCode 0) with
Retry-After: reuse a token until it expires instead of asking for one per call. Calls that take locks
(enrollments, user and profile updates) are limited in how many of one partner may be in flight at once;
beyond that they answer 503 (code 503, subCode 3) with Retry-After, like any 503.

Sandbox only, the header \`X-Sandbox-Fault\` (comma-separated) simulates failures: \`unavailable\` answers any
call 503 (code 503, subCode 2) before anything else; on an enrollment, \`billCycle\` fails the bill-cycle step
(the account stays pending, no card, until the identical retry), and \`after:<point>\` answers 503 right after
that step is stored, so the identical retry resumes it (points: ${ENROLLMENT_POINTS.join(', ')}). On a /v1 route any
other value answers 400 (code 100, subCode 5). Production ignores the header.

Webhooks: events are POSTed to your webhook URL with the Standard Webhooks headers \`webhook-id\`,
\`webhook-timestamp\` and \`webhook-signature\`; see \`POST /v1/webhooks/test\`.

Every operation documents its answers by HTTP status, each with a named schema and examples; any
other error answers the \`ErrorEnvelope\` (\`default\`).
`;

const CARE_DESCRIPTION = `
The issuer's own API, not offered to partners: the care team's account operations (scope \`care\`,
every action recorded in the account's care audit trail with the reason given) and the operators'
endpoints (health checks and metrics, no token). The answers follow the partner API's conventions:
\`requestId\` and \`responseDetails\` in every JSON body, 503 with Retry-After for a call to retry.
`;

/** Operations of the second document (/openapi-care.json): the issuer's care team and its operators, not partners. */
function isCareOrOperations(path: string, operation: OperationObject): boolean {
  return path.startsWith('/v1/care/') || (operation.tags ?? []).includes('Operations');
}

/** Headers of every answer (X-Request-Id) and of every 503 (Retry-After), referenced from components.headers. */
const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description: "The request's id: the body's requestId, else a well-formed X-Request-Id of the request, else a generated id",
    schema: { type: 'string' },
    example: 'req-20261121-0001',
  },
  'Retry-After': {
    description: 'On every 503 and 429: seconds to wait before resending the identical request (see the retry policy)',
    schema: { type: 'integer' },
    example: 1,
  },
  'WWW-Authenticate': {
    description: 'On every 401: the challenge (RFC 6750 Bearer with its error for an API call; Basic on the token endpoint)',
    schema: { type: 'string' },
    example: 'Bearer realm="enrollment-service", error="invalid_token"',
  },
  RateLimit: {
    description: 'On every answer of a rate-limited operation: IETF httpapi ratelimit, "<policy>";r=<remaining>;t=<seconds to reset>',
    schema: { type: 'string' },
    example: '"client";r=59;t=60',
  },
  'RateLimit-Policy': {
    description: 'On every answer of a rate-limited operation: IETF httpapi ratelimit policies, "<policy>";q=<limit>;w=<window seconds>',
    schema: { type: 'string' },
    example: '"client";q=60;w=60',
  },
};

/**
 * What every route answers to a request HTTP cannot read, before any route is chosen (client-error.ts:
 * Node's header limit, and installHostCheck), and what every /v1 route answers to a sandbox fault it
 * does not know (sandboxFaultHook): the 400s of a request's headers, whatever the operation.
 */
const UNREADABLE_REQUEST =
  'headers over 16 KiB in all, or an HTTP/1.1 request without Host: 400/100/1 ("Malformed request: its headers exceed 16 KiB", "Malformed request: no Host header")';
const UNKNOWN_SANDBOX_FAULT = 'sandbox only, an X-Sandbox-Fault value the sandbox does not know: 400/100/5 naming the header';

/**
 * An operation's 400 in the error envelope also lists the 400s of its headers (UNREADABLE_REQUEST, and
 * on /v1 UNKNOWN_SANDBOX_FAULT), with their rows' examples when it does not list them already.
 */
function addHeaderErrors(path: string, response: ResponseObject): void {
  const media = response.content?.['application/json'];
  if (!media || (media.schema as { $ref?: string } | undefined)?.$ref !== '#/components/schemas/ErrorEnvelope') return;
  const v1 = path.startsWith('/v1/');
  response.description = `${response.description}. For its headers, as every ${v1 ? '/v1 ' : ''}operation: ${v1 ? `${UNKNOWN_SANDBOX_FAULT}; ` : ''}${UNREADABLE_REQUEST}`;
  const keys: ErrorKey[] = v1 ? ['INVALID_FIELD', 'MALFORMED_REQUEST'] : ['MALFORMED_REQUEST'];
  media.examples = { ...(media.examples ?? {}) };
  for (const key of keys) media.examples[key] ??= { summary: rowSummary(key), value: errorExample(key) };
}

/** Operations whose every answer carries RateLimit and RateLimit-Policy (CONTRACT sections 7 and 12). */
const RATE_LIMITED_OPERATIONS = new Set(['issueToken', 'sendTestWebhook', 'redeliverWebhookEvent']);

/** Default answers that come from the body pipes' JSON handling: an operation that takes only a form answers those itself. */
const JSON_BODY_ERROR_KEYS: readonly ErrorKey[] = ['MALFORMED_JSON', 'UNKNOWN_PROPERTY', 'BODY_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

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

/** Partners use the API under their program agreement with the issuer; nothing of it is open source. */
const LICENSE_NAME = 'Proprietary: use under your program agreement with the issuer';

function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * What the decorators cannot say once for all: every operation's `default` answer is the error
 * envelope (unknown route, body, availability), an operation without client errors of its own
 * still names the 4XX answer of a request it cannot take, and the response views are closed.
 */
function completeDocument(document: OpenAPIObject): OpenAPIObject {
  const examples: Examples = {};
  for (const key of DEFAULT_ERROR_KEYS) examples[key] = { summary: rowSummary(key), value: errorExample(key) };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (operation.responses['400']) addHeaderErrors(path, operation.responses['400'] as ResponseObject);
      if (!Object.keys(operation.responses).some((status) => status.startsWith('4'))) {
        operation.responses['4XX'] = {
          description:
            `No client error of its own: a request that is not this operation as documented (a malformed URL, another method) answers ${rowSummary('ROUTE_NOT_FOUND')}, ` +
            `whatever its body; ${UNREADABLE_REQUEST}`,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorEnvelope' },
              examples: Object.fromEntries(
                (['ROUTE_NOT_FOUND', 'MALFORMED_REQUEST'] as const).map((key) => [key, { summary: rowSummary(key), value: errorExample(key) }]),
              ),
            },
          },
        };
      }
      const requestBody = operation.requestBody as { content?: Record<string, unknown> } | undefined;
      const formOnly = requestBody?.content !== undefined && Object.keys(requestBody.content).every((type) => type === 'application/x-www-form-urlencoded');
      operation.responses.default ??= formOnly
        ? {
            description: 'Any other error: dependency unavailable (503 with Retry-After), unexpected (500); a body it cannot take is its own 400',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/ErrorEnvelope' },
                examples: Object.fromEntries(Object.entries(examples).filter(([key]) => !JSON_BODY_ERROR_KEYS.includes(key as ErrorKey))),
              },
            },
          }
        : {
            description:
              'Any other error: malformed JSON, unknown property, body too large, content type, unknown route, dependency unavailable (503 with Retry-After), unexpected (500)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, examples } },
          };
    }
  }
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const rateLimited = RATE_LIMITED_OPERATIONS.has(item[method]?.operationId ?? '');
      for (const [status, response] of Object.entries(item[method]?.responses ?? {}) as Array<[string, ResponseObject]>) {
        const names = [
          'X-Request-Id',
          ...(status === '503' || status === '429' || status === 'default' ? ['Retry-After'] : []),
          ...(status === '401' ? ['WWW-Authenticate'] : []),
          ...(rateLimited ? ['RateLimit', 'RateLimit-Policy'] : []),
        ];
        response.headers = { ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])), ...(response.headers ?? {}) };
      }
    }
  }
  document.components = { ...document.components, headers: { ...(document.components?.headers ?? {}), ...RESPONSE_HEADERS } };
  shareErrorExamples(document);
  closeObjectSchemas(document);
  return document;
}

/** The token request's form: RFC 6749 section 3.2 has the endpoint ignore parameters it does not know, and it does. */
const OPEN_SCHEMAS = new Set(['TokenRequest']);

/**
 * Every named object schema lists all the properties it may carry (`additionalProperties: false`):
 * the service refuses a request body with an undeclared property (400/100/2), and an answer with an
 * undocumented field fails the e2e schema check. A schema that says otherwise keeps its own setting,
 * and the OPEN_SCHEMAS say `true`.
 */
function closeObjectSchemas(document: OpenAPIObject): void {
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if ('$ref' in schema || schema.additionalProperties !== undefined || schema.properties === undefined) continue;
    if (OPEN_SCHEMAS.has(name)) {
      schema.additionalProperties = true;
      continue;
    }
    if (schema.allOf || schema.oneOf || schema.anyOf) continue;
    schema.additionalProperties = false;
  }
}

/** Every `#/components/...` reference reachable from the document's paths and security. */
function reachableComponents(document: OpenAPIObject): Set<string> {
  const found = new Set<string>();
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!value || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/') && !found.has(child)) {
        found.add(child);
        const [, , kind, name] = child.split('/');
        visit(components[kind]?.[name]);
      } else visit(child);
    }
  };
  visit(document.paths);
  return found;
}

/**
 * The operations `keep` selects, with only the components they use and the security schemes and
 * scopes their operations name (a partner's document lists no care scope).
 */
function selectOperations(
  full: OpenAPIObject,
  keep: (path: string, operation: OperationObject) => boolean,
  info: Partial<OpenAPIObject['info']>,
): OpenAPIObject {
  const document = structuredClone(full);
  document.info = { ...document.info, ...info };
  document.paths = {};
  const schemes = new Map<string, Set<string>>();
  for (const [path, item] of Object.entries(full.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation || !keep(path, operation)) continue;
      document.paths[path] = { ...(document.paths[path] ?? {}), [method]: structuredClone(operation) };
      for (const requirement of operation.security ?? []) {
        for (const [scheme, scopes] of Object.entries(requirement)) schemes.set(scheme, new Set([...(schemes.get(scheme) ?? []), ...scopes]));
      }
    }
  }
  const used = reachableComponents(document);
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  for (const [kind, entries] of Object.entries(components)) {
    if (kind === 'securitySchemes' || !entries) continue;
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${kind}/${name}`)) delete entries[name];
  }
  const securitySchemes = document.components?.securitySchemes ?? {};
  for (const [name, scheme] of Object.entries(securitySchemes)) {
    if (!schemes.has(name)) delete securitySchemes[name];
    else if ('flows' in scheme && scheme.flows?.clientCredentials) {
      const all = scheme.flows.clientCredentials.scopes;
      scheme.flows.clientCredentials.scopes = Object.fromEntries(Object.entries(all).filter(([scope]) => schemes.get(name)?.has(scope)));
    }
  }
  return document;
}

function catalogueTable(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(([key, e]) => `| ${key} | ${e.http} | ${e.code} | ${e.subCode} | ${e.description} |`);
  return ['| key | HTTP | code | subCode | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

export interface OpenApiDocuments {
  /** `/openapi.json`: what a partner calls. */
  partner: OpenAPIObject;
  /** `/openapi-care.json`: the issuer's care team and operators. */
  care: OpenAPIObject;
}

export function buildOpenApiDocuments(app: NestFastifyApplication, config: AppConfig): OpenApiDocuments {
  const builder = new DocumentBuilder()
    .setTitle('Enrollment, User Profile and Business Profile Service')
    .setVersion(packageVersion())
    .setDescription(`${DESCRIPTION}\n\n## Error catalogue\n\n${catalogueTable()}`)
    // A licence needs a URL (Redocly's info-license-strict); the terms themselves are the partner's agreement.
    .setLicense(LICENSE_NAME, `${config.env.publicUrl}/docs`)
    .addServer(config.env.publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of POST /oauth2/token' }, 'bearer')
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'client_secret_basic: client_id and client_secret (token endpoint only)' }, 'clientSecretBasic')
    .addOAuth2(
      {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: `${config.env.publicUrl}${TOKEN_PATH}`,
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
  const full = completeDocument(SwaggerModule.createDocument(app, builder.build()));
  return {
    partner: selectOperations(full, (path, operation) => !isCareOrOperations(path, operation), {}),
    care: selectOperations(full, isCareOrOperations, { title: 'Care and operations API of the enrollment service', description: CARE_DESCRIPTION }),
  };
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Enrollment API</title>
<link rel="stylesheet" href="docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/swagger-ui-standalone-preset.js"></script>
<script src="docs/swagger-init.js"></script>
</body></html>`;

/**
 * Both documents in one page, chosen in the top bar (the standalone layout shows `urls`), the
 * partner API first. Every file is named relative to the page, so that `/docs` behind a proxy's path
 * prefix (a PUBLIC_URL with a path) loads its own; no online validator badge (it would send the
 * document's URL to validator.swagger.io, and the CSP blocks its image anyway). "Authorize" runs the oauth2 client-credentials flow of the document (client
 * id and secret sent with HTTP Basic to /oauth2/token); the token is not kept across reloads (a
 * bearer token in localStorage would outlive the page for any script of this origin).
 */
const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({
  urls: [
    { url: 'openapi.json', name: 'Partner API' },
    { url: 'openapi-care.json', name: 'Care and operations API' },
  ],
  validatorUrl: null,
  'urls.primaryName': 'Partner API',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  persistAuthorization: false,
  displayOperationId: true,
  tryItOutEnabled: true,
});
window.ui.initOAuth({ clientId: '', scopeSeparator: ' ', useBasicAuthenticationWithAccessCodeGrant: true });
`;

/**
 * `/openapi.json` and `/openapi-care.json` from the code's decorators; `/docs` is Swagger UI served
 * from swagger-ui-dist by fixed routes (SwaggerModule's own UI needs @fastify/static, whose ESM
 * dependencies Jest cannot load).
 */
/**
 * Swagger UI's pages: scripts from this origin only, never inline (swagger-ui sets inline styles,
 * hence 'unsafe-inline' for styles alone); it calls this origin's documents and token endpoint.
 */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function setupOpenApi(app: NestFastifyApplication, config: AppConfig): void {
  const { partner, care } = buildOpenApiDocuments(app, config);
  const fastify = app.getHttpAdapter().getInstance();
  for (const [route, document] of [
    ['/openapi.json', partner],
    ['/openapi-care.json', care],
  ] as const) {
    const text = JSON.stringify(document);
    fastify.get(route, async (_request, reply) => reply.type('application/json; charset=utf-8').send(text));
  }
  const distDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets: Record<string, string> = {
    'swagger-ui.css': 'text/css',
    'swagger-ui-bundle.js': 'application/javascript',
    'swagger-ui-standalone-preset.js': 'application/javascript',
  };
  // Production serves the documents, not the UI, unless DOCS_IN_PRODUCTION=true says so.
  if (config.isProduction && !config.env.docsInProduction) return;
  fastify.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).send(DOCS_HTML));
  fastify.get('/docs/swagger-init.js', async (_request, reply) => reply.type('application/javascript').send(DOCS_INIT_JS));
  for (const [file, type] of Object.entries(assets)) {
    // The CSS names a source map that is not served: the comment goes, so no browser asks for it.
    const body =
      type === 'text/css'
        ? fs.readFileSync(path.join(distDir, file), 'utf8').replace(/\/\*# sourceMappingURL=[^*]*\*\//g, '')
        : fs.readFileSync(path.join(distDir, file));
    fastify.get(`/docs/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=86400').send(body));
  }
}
