import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { OpenApiResponseValidator, Verdict } from './openapi-response-validator';

/**
 * The e2e schema check (issue 14, CONTRACT section 15): every JSON answer an e2e spec receives
 * from a test app, for an operation documented in its /openapi.json or /openapi-care.json (the
 * care and operations endpoints), is validated against the documented response schema. A mismatch fails the test that received it (see schema-check.setup.ts).
 * Outside it: origins that are not test apps (webhook receivers, OIDC providers), non-JSON answers
 * (HTML pages, /metrics), undocumented paths, and the fuzz spec's random requests.
 */
export interface Mismatch {
  operationId: string;
  status: number;
  request: string;
  errors: string[];
}

export interface SchemaCheckReport {
  spec: string;
  pairs: string[];
  mismatches: Mismatch[];
}

export const SCHEMA_CHECK_DIR = 'schema-check';

interface OpenApiDocument {
  paths: Record<string, unknown>;
  components?: { schemas?: Record<string, unknown> };
}

class SchemaCheck {
  private readonly origins = new Set<string>();
  private readonly validators = new Map<string, Promise<OpenApiResponseValidator>>();
  readonly pairs = new Set<string>();
  readonly mismatches: Mismatch[] = [];
  /** Mismatches not yet reported by a failing test. */
  pending: Mismatch[] = [];
  private realFetch: typeof fetch = globalThis.fetch;

  /** A test app's base URL: its answers are checked against its own two documents. */
  watch(baseUrl: string): void {
    this.origins.add(new URL(baseUrl).origin);
  }

  install(): void {
    const real = globalThis.fetch;
    this.realFetch = real;
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const response = await real(input, init);
      await this.observe(input, init, response);
      return response;
    }) as typeof fetch;
  }

  private async observe(input: string | URL | Request, init: RequestInit | undefined, response: Response): Promise<void> {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!this.origins.has(url.origin)) return;
    if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const validator = await this.validator(url.origin);
    const text = await response.clone().text();
    const verdict: Verdict | undefined = validator.check(method, url.pathname, response.status, text);
    if (!verdict) return;
    this.pairs.add(`${verdict.operationId} ${verdict.status}`);
    if (verdict.errors.length === 0) return;
    const mismatch = {
      operationId: verdict.operationId,
      status: verdict.status,
      request: `${method} ${url.pathname}`,
      errors: [...verdict.errors, `body: ${text.slice(0, 600)}`],
    };
    this.mismatches.push(mismatch);
    this.pending.push(mismatch);
  }

  private validator(origin: string): Promise<OpenApiResponseValidator> {
    let validator = this.validators.get(origin);
    if (!validator) {
      const load = (document: string) => this.realFetch(`${origin}/${document}`).then((r) => r.json() as Promise<OpenApiDocument>);
      validator = Promise.all([load('openapi.json'), load('openapi-care.json')]).then(
        ([partner, care]) =>
          new OpenApiResponseValidator({
            paths: { ...partner.paths, ...care.paths },
            components: { schemas: { ...partner.components?.schemas, ...care.components?.schemas } },
          }),
      );
      this.validators.set(origin, validator);
    }
    return validator;
  }

  /** Throws (failing the current test or hook) for mismatches seen since the last call. */
  assertNoPendingMismatch(): void {
    const pending = this.pending;
    this.pending = [];
    if (pending.length === 0) return;
    const lines = pending.map((m) => `${m.request} -> ${m.status} (${m.operationId}):\n    ${m.errors.join('\n    ')}`);
    throw new Error(`OpenAPI schema check: ${pending.length} answer(s) do not match their documented schema\n  ${lines.join('\n  ')}`);
  }

  /** One file per spec in the run folder; globalTeardown sums them up. */
  writeReport(spec: string): void {
    const runDir = process.env.TEST_RUN_DIR;
    if (!runDir || (this.pairs.size === 0 && this.mismatches.length === 0)) return;
    const dir = path.join(runDir, SCHEMA_CHECK_DIR);
    fs.mkdirSync(dir, { recursive: true });
    const report: SchemaCheckReport = { spec, pairs: [...this.pairs], mismatches: this.mismatches };
    fs.writeFileSync(path.join(dir, `${path.basename(spec)}-${randomBytes(4).toString('hex')}.json`), JSON.stringify(report));
  }
}

export const schemaCheck = new SchemaCheck();
