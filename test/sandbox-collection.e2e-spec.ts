import { randomInt, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PARTNERS, startTestApp, TestApp } from './support/test-app';

/** One request of the .http collection, as the VS Code REST Client reads it. */
interface CollectionRequest {
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function parseCollection(text: string): { variables: Record<string, string>; requests: CollectionRequest[] } {
  const variables = Object.fromEntries([...text.matchAll(/^@(\w+) = (.*)$/gm)].map((m) => [m[1] as string, m[2] as string]));
  const requests = text
    .split(/^### /m)
    .slice(1)
    .map((block) => {
      const lines = block.split('\n').filter((line) => !line.startsWith('#'));
      const name = /^# @name (\w+)$/m.exec(block)?.[1] as string;
      const [method, url] = (lines.find((line) => /^[A-Z]+ /.test(line)) as string).split(' ') as [string, string];
      const start = lines.findIndex((line) => /^[A-Z]+ /.test(line));
      const blank = lines.indexOf('', start);
      const headers = Object.fromEntries(
        lines.slice(start + 1, blank).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const body = lines
        .slice(blank + 1)
        .join('\n')
        .trim();
      return { name, method, url, headers, body: body === '' ? undefined : body };
    });
  return { variables, requests };
}

/** `$.a.b[0].c` of a JSON answer (the REST Client's response-variable paths). */
function jsonPath(value: unknown, pathText: string): unknown {
  return [...pathText.replace(/^\$\.?/, '').matchAll(/[^.[\]]+/g)].reduce<unknown>(
    (node, [key]) => (node as Record<string, unknown> | undefined)?.[key],
    value,
  );
}

/**
 * Runs `client/sandbox.http` as its header says (issueToken, enroll, then every other request in
 * order) against a test app, resolving its variables as the REST Client does: file variables,
 * `{{request.response.body.$.path}}`, and the system variables it uses.
 */
async function runCollection(app: TestApp): Promise<Array<{ name: string; status: number; body: unknown }>> {
  const { variables, requests } = parseCollection(fs.readFileSync(path.join(__dirname, '..', 'client', 'sandbox.http'), 'utf8'));
  Object.assign(variables, { baseUrl: app.baseUrl, clientId: PARTNERS.acme.clientId, clientSecret: PARTNERS.acme.clientSecret });
  const answers = new Map<string, unknown>();
  const resolve = (text: string): string =>
    text.replace(/\{\{([^}]+)\}\}/g, (_m, raw: string) => {
      const use = raw.trim();
      if (use === '$guid') return randomUUID();
      if (use === '$timestamp') return String(Math.floor(Date.now() / 1000));
      if (use === '$datetime iso8601') return new Date().toISOString();
      const range = /^\$randomInt (\d+) (\d+)$/.exec(use);
      if (range) return String(randomInt(Number(range[1]), Number(range[2])));
      const response = /^(\w+)\.response\.body\.(.*)$/.exec(use);
      if (response) return String(jsonPath(answers.get(response[1] as string), response[2] as string));
      if (use in variables) return resolve(variables[use] as string);
      throw new Error(`undefined variable ${use}`);
    });
  const results: Array<{ name: string; status: number; body: unknown }> = [];
  for (const request of requests) {
    const headers = Object.fromEntries(Object.entries(request.headers).map(([key, value]) => [key, resolve(value)]));
    // The REST Client encodes `Basic <user> <password>` itself.
    const basic = /^Basic (\S+) (\S+)$/.exec(headers.authorization ?? '');
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic[1]}:${basic[2]}`).toString('base64')}`;
    const response = await fetch(resolve(request.url), {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : resolve(request.body),
    });
    const text = await response.text();
    const body: unknown = /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
    answers.set(request.name, body);
    results.push({ name: request.name, status: response.status, body });
  }
  return results;
}

/** A request that did not succeed: not 2xx, or an envelope that leads with another code than 0. */
function failed({ status, body }: { status: number; body: unknown }): boolean {
  const code = (body as { responseDetails?: Array<{ code?: number }> } | undefined)?.responseDetails?.[0]?.code;
  return status >= 300 || (code !== undefined && code !== 0);
}

describe('client/sandbox.http (e2e)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp('sandbox_collection', { webhookUrl: 'http://127.0.0.1:9/unreachable' });
  });

  afterAll(async () => {
    await app.close();
  });

  it('runs top to bottom as its header says, every request succeeding, and runs again (a new person each time)', async () => {
    for (const run of [1, 2]) {
      const results = await runCollection(app);
      expect(results.length).toBeGreaterThan(15);
      expect({ run, failed: results.filter(failed).map(({ name, status, body }) => ({ name, status, body })) }).toEqual({ run, failed: [] });
    }
  });
});
