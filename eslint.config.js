// @ts-check
/** ESLint (typescript-eslint) for src, test, bench and client; formatting is Prettier's (eslint-config-prettier turns style rules off). */
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const prettier = require('eslint-config-prettier');
const jestPlugin = require('eslint-plugin-jest');

/**
 * STYLE rule 12: a dependency's private fields, internal files and redefined methods are not ours.
 * Each selector names one way in that an upgrade would break (src/infrastructure/private-access.spec.ts plants each).
 */
const PRIVATE_ACCESS_SYNTAX = [
  {
    selector: "MemberExpression[property.name='master']:matches([object.property.name='driver'], [object.expression.property.name='driver'])",
    message: "TypeORM's driver.master: the pool comes from DatabasePools (TypeORM's documented `driver` option).",
  },
  {
    selector: "AssignmentExpression > MemberExpression.left[property.name='isTransactionActive']",
    message: "TypeORM's query runner owns isTransactionActive: a call's transaction is the CallConnection's.",
  },
  {
    selector:
      "CallExpression[callee.object.name='Object'][callee.property.name=/^(getOwnPropertyDescriptor|defineProperty)$/] > Literal.arguments[value='addHook']",
    message: "Fastify's addHook is not ours to redefine: register hooks through Fastify's API.",
  },
  { selector: "AssignmentExpression > MemberExpression.left[property.name='addHook']", message: "Fastify's addHook is not ours to redefine." },
  {
    // By convention private: a dependency's `_name` member (pg's pool `_clients`, `_idle`, `_ending`…).
    selector: 'MemberExpression[computed=false][property.name=/^_[A-Za-z]/]',
    message: "a member named `_…` is private by convention: use the dependency's documented API.",
  },
  {
    selector: "CallExpression[callee.name='require'] > Literal.arguments[value=/^(@[^/]+\\/)?[^./][^/]*\\/(src|lib|cjs|esm|dist|build|internal)(\\/|$)/]",
    message: "a package's internal files: require the entry points its package.json exports.",
  },
  {
    // Monkey-patching: a class's prototype, or class-validator's metadata storage, redefined.
    selector: "AssignmentExpression > MemberExpression.left[object.type='MemberExpression'][object.property.name='prototype']",
    message: "a prototype is not ours to patch: wrap or extend through the library's API.",
  },
  {
    selector: "AssignmentExpression > MemberExpression.left[object.type='CallExpression'][object.callee.name='getMetadataStorage']",
    message: "class-validator's metadata storage is its own: declare rules with its decorators.",
  },
  {
    // Read once, in src/infrastructure/database/statement-group.ts (its contract test and design note).
    selector: 'MemberExpression[property.name=/^(parsedStatements|submittedNamedStatements|prepareValue)$/]',
    message: "pg's session record and value mapper: only StatementGroup reads them (docs/design-notes.md).",
  },
];

/**
 * Issue 35: a spec's mock is the type it claims (`jest.Mocked<T>`, `Object.assign` on a real instance, a
 * typed fake), never a value cast through `unknown` to another type (src/specs-can-fail.spec.ts plants one).
 */
const CAST_THROUGH_UNKNOWN = {
  selector: "TSAsExpression > TSAsExpression.expression[typeAnnotation.type='TSUnknownKeyword']",
  message: 'a value cast through `unknown` is not the type it claims: type the mock (jest.Mocked<T>, a typed fake) instead.',
};

module.exports = tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'client/dist/**',
      'client/generated/**',
      'coverage/**',
      'bench/results/**',
      '**/*.js',
      '!eslint.config.js',
      '!test/**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'error',
    },
  },
  {
    // STYLE rule 12 (PRIVATE_ACCESS_SYNTAX above, and the imports below).
    name: 'enrollment/private-access',
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['typeorm/*'], message: "TypeORM's deep files: everything public is exported by 'typeorm'." },
            {
              // A package's own folders of built or source files: import what its package.json exports.
              regex: '^(@[^/]+/)?[^./][^/]*/(src|lib|cjs|esm|dist|build|internal)(/|$)',
              message: "a package's internal files: import from the entry points its package.json exports.",
            },
          ],
        },
      ],
      'no-restricted-syntax': ['error', ...PRIVATE_ACCESS_SYNTAX],
    },
  },
  {
    // Nest resolves constructor parameters from their emitted types: a type-only import would erase them.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    // Services know no HTTP (ARCHITECTURE.md): they throw domain errors and return outcomes; the HTTP
    // edge renders them. Fastify and src/common/http are refused to services by .dependency-cruiser.js.
    files: ['src/**/*.service.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@nestjs/common',
              importNames: [
                'HttpException',
                'HttpStatus',
                'Req',
                'Res',
                'Request',
                'Response',
                'Headers',
                'BadRequestException',
                'UnauthorizedException',
                'ForbiddenException',
                'NotFoundException',
                'ConflictException',
                'GoneException',
                'PayloadTooLargeException',
                'UnprocessableEntityException',
                'InternalServerErrorException',
                'ServiceUnavailableException',
                'GatewayTimeoutException',
              ],
              message: 'Services know no HTTP: throw a DomainError (or return an outcome); the filter renders it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts', 'src/**/*.spec.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    // Specs that can fail: every test asserts (expect, or a helper that does: fast-check's fc.assert, the
    // specs' expect…/assert…/reject… helpers, enrollment-limits' enrolled), none is skipped or focused,
    // every expect is complete.
    name: 'enrollment/specs-can-fail',
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.spec.ts', 'client/**/*.spec.ts'],
    plugins: { jest: jestPlugin },
    rules: {
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expect*', 'assert*', 'reject*', 'fc.assert', 'enrolled'] }],
      'jest/no-disabled-tests': 'error',
      'jest/no-focused-tests': 'error',
      'jest/no-identical-title': 'error',
      'jest/valid-expect': 'error',
      'no-restricted-syntax': ['error', CAST_THROUGH_UNKNOWN],
    },
  },
  {
    // Specs in src/ keep src's private-access rule beside the cast rule (a block's rule options replace an earlier block's).
    name: 'enrollment/src-specs',
    files: ['src/**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...PRIVATE_ACCESS_SYNTAX, CAST_THROUGH_UNKNOWN] },
  },
  {
    // Plain ESM scripts run by Node as child processes (the test OIDC provider).
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly', URLSearchParams: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    files: ['eslint.config.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
