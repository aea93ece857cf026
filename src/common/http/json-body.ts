import { isUtf8 } from 'node:buffer';
import type { FastifyBodyParser, FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../errors/domain-error';
import { isEncodedBody } from './content-encoding';
import { mediaType } from './media-type';

/** No request of the contract nests deeper than a handful of levels; 32 leaves ample room. */
export const MAX_BODY_DEPTH = 32;

/** A UTF-16 half of a surrogate pair without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included, on purpose
const ASCII = /^[\x00-\x7F]*$/;

/**
 * NFC, with a lone surrogate (valid in a JSON escape, not in UTF-8) as U+FFFD: what storage would
 * make of it anyway, and a validator (`isEmail`'s encodeURI) would throw on the raw one (a 500).
 */
export function nfcString(text: string): string {
  // ASCII is already NFC and holds no surrogate: most strings of a body, returned as they are.
  if (ASCII.test(text)) return text;
  return text.replace(LONE_SURROGATE, '\uFFFD').normalize('NFC');
}

type Container = Record<string, unknown> | unknown[];

function isContainer(value: unknown): value is Container {
  return value !== null && typeof value === 'object';
}

/** What `prepareJson` does besides the depth limit. */
export interface JsonPreparation {
  maxDepth: number;
  /** Every string value in Unicode NFC and well formed (keys as sent). */
  nfc: boolean;
}

/**
 * `prototype` and every name Object.prototype carries (`__proto__`, `constructor`, `toString`,
 * `valueOf`, `hasOwnProperty`...): class-validator's whitelist looks a key up in a plain object of
 * the DTO's properties, where these names are always found, so it let them through as declared.
 */
const PROTOTYPE_KEYS = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/**
 * The path of a key named like a prototype property (PROTOTYPE_KEYS) at any
 * depth, in the validation's form (`encryptedUserData.addresses[0].prototype`), or null. No DTO
 * declares such a property, so it is an unknown property (CONTRACT section 1: 400/100/2 naming it);
 * the body pipes refuse it before class-transformer, for which an own `constructor` would replace the
 * instance's and hide the DTO's rules. The JSON parser (`jsonBodyParser`) and a decrypted JWE
 * payload both come from JSON.parse, where such a key is only an own property.
 */
export function prototypeKeyPath(root: unknown): string | null {
  // Breadth first: of several, the one nearest the top, in the order sent.
  const pending: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  for (let next = 0; next < pending.length; next++) {
    const { value, path } = pending[next] as { value: unknown; path: string };
    if (Array.isArray(value)) {
      value.forEach((item: unknown, i) => isContainer(item) && pending.push({ value: item, path: `${path}[${i}]` }));
    } else if (isContainer(value)) {
      for (const [key, item] of Object.entries(value)) {
        const at = path ? `${path}.${key}` : key;
        if (PROTOTYPE_KEYS.has(key)) return at;
        if (isContainer(item)) pending.push({ value: item, path: at });
      }
    }
  }
  return null;
}

/**
 * Makes a freshly parsed JSON value (a request's body, a decrypted JWE's payload) ready for
 * validation, in ONE walk and in place: false when objects and arrays nest deeper than `maxDepth`
 * (the root is level 1); otherwise NFC as `options` say. CONTRACT section
 * 6: a decomposed `José` (e + U+0301) is the same name as the precomposed one, so validation, the
 * idempotency fingerprint and storage must all see one form.
 *
 * In place, because the value is the caller's own parse and nothing else holds it. The body hook's
 * one walk replaces two (a depth check, then an NFC copy of every object), whose copies and
 * Object.entries / Object.values arrays cost every body more CPU (docs/design-notes.md, "One walk
 * over the body"). Iterative over containers only, so a hostile body cannot
 * overflow the stack; a too-deep value is refused before its deeper strings are touched.
 */
export function prepareJson(root: unknown, options: JsonPreparation): boolean {
  if (!isContainer(root)) return true;
  const { maxDepth, nfc } = options;
  const containers: Container[] = [root];
  const depths: number[] = [1];
  let depth = 1;
  /** One item or value: a container to walk later; a string's NFC form when it differs (to write back), else undefined. */
  const visit = (child: unknown): string | undefined => {
    if (typeof child === 'string') {
      const normal = nfc ? nfcString(child) : child;
      return normal === child ? undefined : normal;
    }
    if (isContainer(child)) {
      containers.push(child);
      depths.push(depth + 1);
    }
    return undefined;
  };
  while (containers.length > 0) {
    const container = containers.pop() as Container;
    depth = depths.pop() as number;
    if (depth > maxDepth) return false;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const normal = visit(container[i]);
        if (normal !== undefined) container[i] = normal;
      }
      continue;
    }
    for (const key in container) {
      if (!Object.prototype.hasOwnProperty.call(container, key)) continue;
      const normal = visit(container[key]);
      // defineProperty: a key named __proto__ (own, from JSON.parse) stays an own property, never a prototype.
      if (normal !== undefined) Object.defineProperty(container, key, { value: normal, enumerable: true, writable: true, configurable: true });
    }
  }
  return true;
}

/** A /v1 body in the body hook: the depth limit and NFC strings. */
export const API_BODY: JsonPreparation = { maxDepth: MAX_BODY_DEPTH, nfc: true };
/** Any other body (the care console's forms): the depth limit only. */
const OTHER_BODY: JsonPreparation = { maxDepth: MAX_BODY_DEPTH, nfc: false };

/**
 * Fastify preValidation, every route: refuses over-deep JSON before validation (class-transformer
 * and the validation pipe recurse per level, and a 64 KiB body of `{"a":{"a":…` overflowed the
 * stack, a 500, before this), and puts the strings of every /v1 body in NFC. Outside /v1 (the care
 * console's forms) strings are left as sent.
 */
export function jsonBodyHook(request: FastifyRequest, _reply: unknown, done: (error?: Error) => void): void {
  // A form's bytes, for the route that parses them itself (@AcceptsForm('bytes')): not JSON.
  if (Buffer.isBuffer(request.body)) return done();
  if (!prepareJson(request.body, request.url.startsWith('/v1/') ? API_BODY : OTHER_BODY)) return done(new DomainError('MALFORMED_JSON'));
  done();
}

/**
 * The application's JSON parser (registered with Nest's `useBodyParser`, which keeps the bytes as
 * `rawBody`): Fastify's own (`getDefaultJsonParser`), except that no content at all is no body and
 * bytes that are not UTF-8 are malformed JSON. A body-less call (a care operation, a redelivery) that
 * names the JSON media type anyway is not malformed JSON; content that is not JSON, whitespace
 * included, still is (400/100/1). The body of a request that matches no route is not parsed: its
 * answer is 404/404/0 whatever the body (CONTRACT section 11).
 *
 * `__proto__` and `constructor.prototype` are parsed as JSON.parse parses them, as own properties
 * that poison nothing ('ignore'), rather than refused as malformed: the body pipes refuse them, as
 * every key named like a prototype property, as the unknown properties they are, naming them
 * (CONTRACT section 1: 400/100/2; `prototypeKeyPath`). Nothing reads a body before those pipes but by
 * named keys (its requestId, programCode, access_token) and the NFC walk, which writes by defineProperty.
 */
export function jsonBodyParser(fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const parse = fastify.getDefaultJsonParser('ignore', 'ignore');
  return (request, body, done) => {
    if (request.is404 || body.length === 0) return done(null, undefined);
    // CONTRACT section 1: JSON bodies are UTF-8. Declared in another charset: not a body we take (415/100/4);
    // bytes that are not UTF-8: malformed (Buffer#toString alone would turn a stray byte into U+FFFD).
    if (isEncodedBody(request.headers) || mediaType(request.headers['content-type'])?.utf8 === false)
      return done(new DomainError('UNSUPPORTED_MEDIA_TYPE'), undefined);
    if (!isUtf8(body)) return done(new DomainError('MALFORMED_JSON'), undefined);
    parse(request, body.toString('utf8'), done);
  };
}
