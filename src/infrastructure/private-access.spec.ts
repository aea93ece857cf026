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
    ['any private-by-convention member', 'export const idle = pool._idle.length;'],
    ["a require of a package's built files", "export const storage = require('class-transformer/cjs/storage');"],
    ["a require of a scoped package's source files", "export const x = require('@nestjs/core/lib/router');"],
    ["a library's prototype patched", 'Pool.prototype.connect = () => undefined;'],
    ["class-validator's metadata storage redefined", 'getMetadataStorage().getTargetValidationMetadatas = () => [];'],
  ])('fires on %s', (_, code) => {
    expect(messagesOf(code)).toEqual(['no-restricted-syntax: 1']);
  });

  it.each([
    ["pg-boss's internal files", "import { Manager } from 'pg-boss/src/manager';\nexport { Manager };"],
    ["class-transformer's built files", "import { defaultMetadataStorage } from 'class-transformer/cjs/storage';\nexport { defaultMetadataStorage };"],
    ["a scoped package's dist", "import { x } from '@opentelemetry/sdk-node/build/src/sdk';\nexport { x };"],
    ["TypeORM's deep files", "import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';\nexport { PostgresDriver };"],
  ])('fires on an import of %s', (_, code) => {
    expect(messagesOf(code)).toEqual(['no-restricted-imports: 1']);
  });

  it('leaves the public uses alone', () => {
    const code = [
      "fastify.addHook('onRequest', hook);",
      'export const active = runner.isTransactionActive;',
      'export const size = pool.totalCount;',
      "import { PgBoss } from 'pg-boss';",
      "import { parse } from 'csv-parse/sync';",
      "import { helper } from './lib/helper';",
      'export { PgBoss, parse, helper };',
      'export const ownPrototype = Object.getPrototypeOf(pool);',
    ].join('\n');
    expect(messagesOf(code)).toEqual([]);
  });
});
