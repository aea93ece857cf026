import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;

interface Operation {
  operationId: string;
  method: string;
  pattern: RegExp;
  /** Literal segments: the most specific template wins when several match. */
  literals: number;
  responses: Record<string, Json>;
}

export interface Verdict {
  operationId: string;
  status: number;
  /** Empty when the answer matches its documented schema. */
  errors: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * Validates HTTP answers against the responses of an OpenAPI 3.0 document: the schema of the
 * answer's status, else its `NXX` range, else `default`. A JSON answer of a documented operation
 * without a schema for its status is a mismatch, so a route documented without response schemas
 * cannot pass unnoticed. OpenAPI's `nullable` is Ajv 8's own keyword; `example` is ignored.
 */
export class OpenApiResponseValidator {
  private readonly operations: Operation[] = [];
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
    for (const [template, item] of Object.entries(paths)) {
      const segments = template.split('/');
      const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        this.operations.push({
          operationId: String(operation.operationId ?? `${method} ${template}`),
          method: method.toUpperCase(),
          pattern: new RegExp(`^${source}/?$`),
          literals: segments.filter((s) => s && !s.startsWith('{')).length,
          responses: (operation.responses ?? {}) as Record<string, Json>,
        });
      }
    }
    this.operations.sort((a, b) => b.literals - a.literals);
  }

  /** The documented operation of a request, if any. */
  operation(method: string, pathname: string): Operation | undefined {
    return this.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathname));
  }

  /** Undefined when the request is no documented operation; otherwise the verdict on its JSON answer. */
  check(method: string, pathname: string, status: number, bodyText: string): Verdict | undefined {
    const operation = this.operation(method, pathname);
    if (!operation) return undefined;
    const verdict: Verdict = { operationId: operation.operationId, status, errors: [] };
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => operation.responses[k]);
    if (!key) {
      verdict.errors.push(`HTTP ${status} is not documented (no ${status}, ${String(status)[0]}XX or default response)`);
      return verdict;
    }
    const content = (operation.responses[key].content ?? {}) as Record<string, { schema?: Json }>;
    const schema = content['application/json']?.schema;
    if (!schema) {
      verdict.errors.push(`response "${key}" has no application/json schema: declare one (ApiAnswer/ApiErrors or ApiOkResponse({ type }))`);
      return verdict;
    }
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      verdict.errors.push('the answer is declared JSON but does not parse');
      return verdict;
    }
    const validate = this.validator(`${operation.operationId}:${key}`, schema);
    if (!validate(body)) {
      verdict.errors.push(
        ...(validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`),
      );
    }
    return verdict;
  }

  /** Errors of one value against one schema of the document (examples, tests of the check itself). */
  errorsOf(schema: Json, value: unknown): string[] {
    const validate = this.validator(`value:${JSON.stringify(schema)}`, schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`);
  }

  private validator(id: string, schema: Json): ValidateFunction {
    let validate = this.compiled.get(id);
    if (!validate) {
      // The document's components ride along so that "#/components/schemas/X" resolves from the root.
      const components = { schemas: ((this.document.components ?? {}) as Json).schemas ?? {} };
      validate = this.ajv.compile({ $id: `urn:openapi-response:${encodeURIComponent(id)}`, allOf: [schema], components });
      this.compiled.set(id, validate);
    }
    return validate;
  }
}
