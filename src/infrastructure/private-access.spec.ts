import { lintBlock } from '../common/testing/lint-config';

describe('the private-access lint rule (STYLE rule 12)', () => {
  const { block: rule, messagesOf } = lintBlock('enrollment/private-access', 'src/planted.ts');

  it('is in the configuration, for src', () => {
    expect(rule?.files).toEqual(['src/**/*.ts']);
  });

  it.each([
    ["pg's pool clients", 'export const clients = pool._clients;'],
    ["TypeORM's driver.master", 'export const pool = dataSource.driver.master;'],
    ["TypeORM's driver.master, through a cast", 'export const pool = (dataSource.driver as { master: unknown }).master;'],
    ['assignment to isTransactionActive', 'runner.isTransactionActive = true;'],
    ["a require of pg-boss's internal files", "export const manager = require('pg-boss/src/manager');"],
    ["Fastify's addHook taken to redefine", "export const hook = Object.getOwnPropertyDescriptor(fastify, 'addHook');"],
    ["Fastify's addHook redefined", "Object.defineProperty(fastify, 'addHook', { value: () => undefined });"],
    ["Fastify's addHook assigned", 'fastify.addHook = () => undefined;'],
    ["pg's record of a session's parsed statements", 'export const parsed = client.connection.parsedStatements;'],
    ["pg's value mapper", 'export const map = pg.utils.prepareValue;'],
  ])('fires on %s', (_, code) => {
    expect(messagesOf(code)).toEqual(['no-restricted-syntax: 1']);
  });

  it("fires on an import of pg-boss's internal files", () => {
    expect(messagesOf("import { Manager } from 'pg-boss/src/manager';\nexport { Manager };")).toEqual(['no-restricted-imports: 1']);
  });

  it('leaves the public uses alone', () => {
    const code = [
      "fastify.addHook('onRequest', hook);",
      'export const active = runner.isTransactionActive;',
      'export const size = pool.totalCount;',
      "import { PgBoss } from 'pg-boss';",
      'export { PgBoss };',
    ].join('\n');
    expect(messagesOf(code)).toEqual([]);
  });
});
