import type { FastifyRequest } from 'fastify';

type Container = Record<string, unknown> | unknown[];

/** A UTF-16 half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included, on purpose
const ASCII = /^[\x00-\x7F]*$/;

/**
 * NFC, with a lone surrogate (valid in a JSON escape, not in UTF-8) as U+FFFD: what storage would
 * make of it anyway, and a validator (`isEmail`'s encodeURI) would throw on the raw one (a 500).
 */
function normalise(text: string): string {
  // ASCII is already NFC and holds no surrogate: most strings of a body, returned as they are.
  if (ASCII.test(text)) return text;
  return text.replace(LONE_SURROGATE, '\uFFFD').normalize('NFC');
}

/**
 * A copy of a JSON value with every string in Unicode NFC and well formed (keys as sent; the input is left alone).
 * CONTRACT section 6: a decomposed `José` (e + U+0301) is the same name as the precomposed one, so
 * validation, the idempotency fingerprint and storage must all see one form. Iterative, so a deep
 * value cannot overflow the stack.
 */
export function nfcStrings<T>(value: T): T {
  if (typeof value === 'string') return normalise(value) as T;
  if (value === null || typeof value !== 'object') return value;
  const root: Container = Array.isArray(value) ? [] : {};
  const stack: Array<[object, Container]> = [[value, root]];
  while (stack.length > 0) {
    const [source, target] = stack.pop() as [object, Container];
    for (const [key, child] of Object.entries(source)) {
      let copy: unknown = child;
      if (typeof child === 'string') copy = normalise(child);
      else if (child !== null && typeof child === 'object') {
        copy = Array.isArray(child) ? [] : {};
        stack.push([child, copy as Container]);
      }
      // defineProperty: a key named __proto__ stays an own property, never a prototype.
      if (key === '__proto__') Object.defineProperty(target, key, { value: copy, enumerable: true, writable: true, configurable: true });
      else (target as Record<string, unknown>)[key] = copy;
    }
  }
  return root as T;
}

/**
 * Puts the parsed JSON body of every /v1 call in NFC before validation (Fastify preValidation).
 * Outside /v1 bodies are left as sent: the token endpoint compares client secrets byte for byte.
 */
export async function nfcBodyHook(request: FastifyRequest): Promise<void> {
  if (!request.url.startsWith('/v1/') || request.body === null || typeof request.body !== 'object') return;
  request.body = nfcStrings(request.body);
}
