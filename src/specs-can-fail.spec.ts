import * as fs from 'node:fs';
import * as path from 'node:path';
import { lintBlock } from './common/testing/lint-config';

describe('the lint rules on specs (a test that asserts nothing, or that cannot fail, is a defect)', () => {
  const { block: rules, messagesOf } = lintBlock('enrollment/specs-can-fail', 'test/planted.e2e-spec.ts');

  it('cover every spec folder', () => {
    expect(rules?.files).toEqual(['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.spec.ts', 'client/**/*.spec.ts']);
  });

  it.each([
    ['a test without an assertion', "it('calls', async () => {\n  await call();\n});", 'jest/expect-expect: 1'],
    ['a skipped test', "it.skip('later', () => {\n  expect(1).toBe(1);\n});", 'jest/no-disabled-tests: 1'],
    ['a focused test', "it.only('this one', () => {\n  expect(1).toBe(1);\n});", 'jest/no-focused-tests: 1'],
    ['an expect without a matcher', "it('looks', () => {\n  expect(value);\n});", 'jest/valid-expect: 2'],
    ['two tests of one title', "it('a', () => {\n  expect(1).toBe(1);\n});\nit('a', () => {\n  expect(2).toBe(2);\n});", 'jest/no-identical-title: 4'],
  ])('fire on %s', (_, code, message) => {
    expect(messagesOf(code)).toEqual([message]);
  });

  it("accept the specs' asserting helpers and fast-check's fc.assert", () => {
    const code = [
      "it('helpers', async () => {",
      '  await expectRejected(body, 400, 100, 1);',
      '  await rejectBusiness(data, 350, 0);',
      '  await fc.assert(property);',
      '});',
    ].join('\n');
    expect(messagesOf(code)).toEqual([]);
  });
});

/** Lines of `source` that cast a value through `unknown` to another type: a mock that is not the type it claims. */
export function castsThroughUnknown(source: string): number[] {
  return source.split('\n').flatMap((line, index) => (/\bas\s+unknown\s+as\b/.test(line) ? [index + 1] : []));
}

describe('unit specs mock with types (issue 35: jest.Mocked<T>, Object.assign on a real instance; no cast through unknown)', () => {
  const root = path.resolve(__dirname, '..');
  const unitSpecs = ['src', 'bench', 'client'].flatMap((folder) =>
    fs
      .readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.spec.ts'))
      .map((file) => path.join(folder, file)),
  );

  it('finds a planted cast', () => {
    // Spelled in parts, so that this file holds no such cast itself.
    const cast = ['as', 'unknown', 'as'].join(' ');
    expect(castsThroughUnknown(`const a = 1;\nconst pool = { query } ${cast} Pool;\nconst b = x as Pool;`)).toEqual([2]);
  });

  it('finds none in any unit spec', () => {
    expect(unitSpecs.length).toBeGreaterThan(50);
    const found = unitSpecs.flatMap((file) => castsThroughUnknown(fs.readFileSync(path.join(root, file), 'utf8')).map((line) => `${file}:${line}`));
    expect(found).toEqual([]);
  });
});
