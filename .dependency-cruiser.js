/**
 * The dependency rules of ARCHITECTURE.md, checked by `npm run lint` (depcruise), spec files
 * included. A module's entities and repositories are its own: other modules call its services.
 * `common/` (pipes, guards, errors shared by every module) never reaches into `infrastructure/`
 * (database, crypto, queue) nor into a module. Services know no HTTP. Modules form no cycle,
 * neither between files nor between module folders. Violations older than a rule are listed, one
 * by one, in .dependency-cruiser-known-violations.json (`--ignore-known`): a new one fails; fixing
 * one means removing it from the list (`npm run lint:baseline`), which src/dependency-rules.spec.ts
 * checks.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-foreign-entities',
      severity: 'error',
      comment: "A module imports another module's entities/: call that module's service instead.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/entities/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'common-not-infrastructure',
      severity: 'error',
      comment: 'common/ is shared by every module and stays free of infrastructure (database, crypto, queue).',
      from: { path: '^src/common/' },
      to: { path: '^src/infrastructure/' },
    },
    {
      name: 'common-not-modules',
      severity: 'error',
      comment: 'common/ is shared by every module and knows none of them: what it needs from a module is passed to it.',
      from: { path: '^src/common/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'no-foreign-repositories',
      severity: 'error',
      comment: "A module imports another module's repositories: call that module's service instead (its tables are its own).",
      from: { path: '^src/modules/([^/]+)/' },
      // Anything in its repositories/ folder (row types and column lists too), and a *.repository.ts anywhere in it.
      to: { path: '^src/modules/([^/]+)/(repositories/|.+\\.repository\\.ts$)', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'services-not-http',
      severity: 'error',
      comment:
        'Services know no HTTP: no Fastify, no src/common/http; they return outcomes or throw domain errors, the HTTP edge renders them ' +
        "(@nestjs/common's HttpException, Req and Res are refused by ESLint's no-restricted-imports in *.service.ts).",
      // Every file of a services/ folder and the call runner (their imports, not what those import in turn).
      from: { path: ['\\.service\\.ts$', '^src/modules/[^/]+/services/', '^src/modules/locking/call-runner\\.ts$'] },
      to: { path: ['^src/common/http/', '(^|/)node_modules/(fastify|@fastify/[^/]+|@nestjs/platform-fastify)/'] },
    },
    {
      name: 'infrastructure-not-modules',
      severity: 'error',
      comment: 'Infrastructure knows nothing of the resource modules.',
      from: { path: '^src/infrastructure/' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Module files form no import cycle (type-only imports included).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment:
        'Module folders form no cycle (accounts → user → accounts was one): a module that another needs does not need it back; ' +
        'what both need goes below them, what needs both goes in a module above them (account-views). Folder scope sees the ' +
        'cycles between folders, every Nest module import among them; src/dependency-rules.spec.ts also checks the whole module graph.',
      scope: 'folder',
      from: { path: '^src/modules/([^/]+)' },
      to: { path: '^src/modules/', pathNot: '^src/modules/$1(/|$)', circular: true },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: {
      archi: { collapsePattern: '^src/(modules|infrastructure|common|config)/[^/]+' },
      text: { highlightFocused: true },
    },
  },
};
