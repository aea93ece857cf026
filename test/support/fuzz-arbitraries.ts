import fc from 'fast-check';

/**
 * JSON as a tree we serialise ourselves, so bodies can carry what JS objects cannot hold safely:
 * `__proto__` keys, duplicate keys, number literals such as 1e999 or -0.
 */
export type JsonNode =
  { t: 'o'; e: Array<[string, JsonNode]> } | { t: 'a'; i: JsonNode[] } | { t: 's'; v: string | number | boolean | null } | { t: 'r'; raw: string };

export function toJson(node: JsonNode): string {
  switch (node.t) {
    case 'o':
      return `{${node.e.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
    case 'a':
      return `[${node.i.map(toJson).join(',')}]`;
    case 's':
      return JSON.stringify(node.v);
    case 'r':
      return node.raw;
  }
}

export function fromJs(value: unknown): JsonNode {
  if (Array.isArray(value)) return { t: 'a', i: value.map(fromJs) };
  if (value !== null && typeof value === 'object') return { t: 'o', e: Object.entries(value).map(([k, v]) => [k, fromJs(v)]) };
  return { t: 's', v: value as string | number | boolean | null };
}

const SPANISH = ['a', 'e', 'i', 'o', 'u', 'n', 'á', 'é', 'í', 'ó', 'ú', 'ü', 'ñ', 'Á', 'É', 'Í', 'Ó', 'Ú', 'Ü', 'Ñ'];

/** Spanish letters, each randomly in NFC or NFD form (é vs e + U+0301), within one string. */
export const mixedSpanish = (minLength = 2, maxLength = 12): fc.Arbitrary<string> =>
  fc
    .array(fc.tuple(fc.constantFrom(...SPANISH), fc.boolean()), { minLength, maxLength })
    .map((chars) => chars.map(([c, decomposed]) => c.normalize(decomposed ? 'NFD' : 'NFC')).join(''))
    .map((s) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`);

export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'];

const key = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(...POLLUTION_KEYS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'requestId',
      'encryptedUserData',
      'identifyingData',
      'ssn',
      'addresses',
      'businessData',
      'itin',
      'status',
      'accountCycleDay',
      '',
    ),
  },
);

const scalar: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.string({ maxLength: 40 }).map((v): JsonNode => ({ t: 's', v })),
  fc.string({ unit: 'binary', maxLength: 20 }).map((v): JsonNode => ({ t: 's', v })),
  mixedSpanish().map((v): JsonNode => ({ t: 's', v })),
  fc.integer().map((v): JsonNode => ({ t: 's', v })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((v): JsonNode => ({ t: 's', v })),
  fc.constantFrom(true, false, null).map((v): JsonNode => ({ t: 's', v })),
  fc.constantFrom('1e999', '-1e999', '-0', '1e-999', '123456789012345678901234567890', '0.1e1', '-9007199254740993').map((raw): JsonNode => ({ t: 'r', raw })),
  fc.constantFrom('\u0000', '\u202e', '😀', '\ud800', '<script>', "' or 1=1 --", '${jndi:x}', '%s%n', '../../etc/passwd').map((v): JsonNode => ({ t: 's', v })),
  fc.integer({ min: 1_000, max: 70_000 }).map((n): JsonNode => ({ t: 's', v: 'x'.repeat(n) })),
);

/** Any JSON tree, objects with adversarial keys. */
export const adversarialJson: fc.Arbitrary<JsonNode> = fc.letrec<{ node: JsonNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('node'), { maxLength: 4 }).map((i): JsonNode => ({ t: 'a', i })),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 5 }).map((e): JsonNode => ({ t: 'o', e })),
  ),
})).node;

/** Objects or arrays nested `depth` deep, optionally under a real property name. */
export const deepNesting: fc.Arbitrary<{ text: string; depth: number }> = fc
  .tuple(fc.integer({ min: 20, max: 12_000 }), fc.constantFrom('{"a":', '['), fc.constantFrom('', '{"requestId":"deep","encryptedUserData":'))
  .map(([depth, open, prefix]) => {
    const close = open === '[' ? ']' : '}';
    return { text: `${prefix}${open.repeat(depth)}1${close.repeat(depth)}${prefix ? '}' : ''}`, depth };
  });

/** Every path of a tree (object keys and array indexes), the root excluded. */
export function pathsOf(node: JsonNode, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (node.t === 'o') return node.e.flatMap(([, v], i) => [[...prefix, i], ...pathsOf(v, [...prefix, i])]);
  if (node.t === 'a') return node.i.flatMap((v, i) => [[...prefix, i], ...pathsOf(v, [...prefix, i])]);
  return [];
}

/** A readable form of an index path: `encryptedUserData.addresses[0].type`. */
export function describePath(node: JsonNode, path: Array<string | number>): string {
  let out = '';
  let at: JsonNode | undefined = node;
  for (const step of path as number[]) {
    if (at?.t === 'o') {
      out += `${out ? '.' : ''}${at.e[step]?.[0]}`;
      at = at.e[step]?.[1];
    } else if (at?.t === 'a') {
      out += `[${step}]`;
      at = at.i[step];
    }
  }
  return out || '(root)';
}

export type Mutation = { kind: 'replace'; with: JsonNode } | { kind: 'delete' } | { kind: 'pollute'; key: string; with: JsonNode } | { kind: 'wrap' };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  adversarialJson.map((w): Mutation => ({ kind: 'replace', with: w })),
  fc.constant<Mutation>({ kind: 'delete' }),
  fc.tuple(fc.constantFrom(...POLLUTION_KEYS), adversarialJson).map(([k, w]): Mutation => ({ kind: 'pollute', key: k, with: w })),
  fc.constant<Mutation>({ kind: 'wrap' }),
);

/** Applies `m` at `path` (indexes into entries/items); returns a new tree. */
export function mutate(node: JsonNode, path: Array<string | number>, m: Mutation): JsonNode {
  if (path.length === 0) {
    if (m.kind === 'replace') return m.with;
    if (m.kind === 'wrap') return { t: 'a', i: [node] };
    if (m.kind === 'pollute' && node.t === 'o') return { t: 'o', e: [...node.e, [m.key, m.with]] };
    return node;
  }
  const [head, ...rest] = path as number[];
  if (node.t === 'o') {
    if (rest.length === 0 && m.kind === 'delete') return { t: 'o', e: node.e.filter((_, i) => i !== head) };
    return { t: 'o', e: node.e.map(([k, v], i) => [k, i === head ? mutate(v, rest, m) : v]) };
  }
  if (node.t === 'a') {
    if (rest.length === 0 && m.kind === 'delete') return { t: 'a', i: node.i.filter((_, i) => i !== head) };
    return { t: 'a', i: node.i.map((v, i) => (i === head ? mutate(v, rest, m) : v)) };
  }
  return node;
}

/** Bytes that are not UTF-8: lone continuation, truncated and overlong sequences, surrogates, 0xFE/0xFF. */
export const invalidUtf8: fc.Arbitrary<Uint8Array> = fc
  .array(
    fc.constantFrom(
      [0x80],
      [0xbf],
      [0xc3],
      [0xc3, 0x28],
      [0xe2, 0x82],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xfe],
      [0xff],
      [0x41],
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((parts) => Uint8Array.from(parts.flat()));
