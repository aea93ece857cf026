import * as fs from 'node:fs';
import * as path from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ERROR_CATALOGUE } from './common/errors/error-catalogue';
import { AppConfig } from './config/app-config';
import { version as PACKAGE_VERSION } from '../package.json';

const DESCRIPTION = `
Partner-facing enrollment API. Every JSON body carries \`requestId\` and \`responseDetails\`
(\`[{code, subCode, description, field?}]\`); success is exactly one detail \`{code: 0, subCode: 0}\`.
Business declines (account limits, OFAC hold, locked account) answer HTTP 200 with the decline first.
\`X-Request-Id\` echoes the body's requestId, or a generated id.

Retry policy: retry only on 503 (which carries Retry-After), with the same request, at most 3 times,
after random waits of 1-1000 ms, 1000-5000 ms and 5000-30000 ms. Never retry a 400 or 500.
`;

function catalogueTable(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(
    ([key, e]) => `| ${key} | ${e.http} | ${e.code} | ${e.subCode} | ${e.description} |`,
  );
  return ['| key | HTTP | code | subCode | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function buildOpenApiDocument(app: NestFastifyApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Enrollment, User Profile and Business Profile Service')
    .setVersion(PACKAGE_VERSION)
    .setDescription(`${DESCRIPTION}\n\n## Error catalogue\n\n${catalogueTable()}`)
    .addServer(config.env.publicUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
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
              webhooks: 'test webhooks',
              care: "issuer's care team operations",
            },
          },
        },
      },
      'oauth2',
    );
  return SwaggerModule.createDocument(app, builder.build());
}

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Enrollment API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui' });</script>
</body></html>`;

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
  for (const [file, type] of Object.entries(assets)) {
    const body = fs.readFileSync(path.join(distDir, file));
    fastify.get(`/docs/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=86400').send(body));
  }
}
