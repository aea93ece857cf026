import * as path from 'node:path';
import { ESLint } from 'eslint';
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
    // Issue 35: typed mocks (jest.Mocked<T>, a typed fake), not a value cast through unknown.
    ['a mock cast through unknown', 'const pool = { query } as unknown as Pool;', 'no-restricted-syntax: 1'],
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

describe('the lint configuration as `npm run lint` composes it', () => {
  const root = path.resolve(__dirname, '..');
  const lint = async (code: string, file: string) => {
    const [result] = await new ESLint({ cwd: root }).lintText(code, { filePath: path.join(root, file) });
    return result.messages.map((message) => `${message.ruleId}: ${message.line}:${message.column}`);
  };

  it("keeps src's private-access rule in src's specs beside the cast rule (a later block's options replace an earlier one's)", async () => {
    const code = 'export const open = (pool as unknown as { _clients: unknown[] })._clients;\n';
    expect(await lint(code, 'src/planted.spec.ts')).toEqual(['no-restricted-syntax: 1:21', 'no-restricted-syntax: 1:22']);
  });

  it("refuses a cast through unknown in the e2e tier's helpers, and allows it in src's code", async () => {
    const code = 'export const value = (input as unknown as Pool).query;\n';
    expect(await lint(code, 'test/support/planted.ts')).toEqual(['no-restricted-syntax: 1:23']);
    expect(await lint(code, 'src/planted.ts')).toEqual([]);
  });
});
