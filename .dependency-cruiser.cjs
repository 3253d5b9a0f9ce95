/** The import graph's rules; docs/architecture.md explains each. */
module.exports = {
  forbidden: [
    {
      name: 'libs-know-no-app',
      severity: 'error',
      comment: 'A library is shared by the apps; it never reaches into one.',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'apps-know-no-other-app',
      severity: 'error',
      comment:
        "Apps talk through HTTP, queues and libs/contracts, never through each other's code (a test may start another app).",
      from: { path: '^apps/([^/]+)/', pathNot: '^apps/[^/]+/test/' },
      to: { path: '^apps/', pathNot: ['^apps/$1/'] },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycles between files.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'No cycles between feature folders: a feature depends on another, or is depended on, not both.',
      scope: 'folder',
      // A feature's dto/ folder is part of the feature. The console is in: its shell (app/) sits on top.
      from: { path: '^apps/[^/]+/src/', pathNot: '/dto$' },
      to: { circular: true, pathNot: '/dto$' },
    },
    {
      name: 'contract-views-are-plain',
      severity: 'error',
      comment:
        'The console bundles the views: an import of anything but another view would pull server code into the browser.',
      from: { path: '^libs/contracts/src/views/' },
      to: { pathNot: '^libs/contracts/src/views/' },
    },
    {
      name: 'contracts-carry-no-runtime',
      severity: 'error',
      comment: 'libs/contracts holds shapes: no library but libs/errors, and no queue, Redis or database client.',
      from: { path: '^libs/contracts/' },
      to: {
        path: ['^libs/(?!contracts/|errors/)', '(^|/)node_modules/(bull|ioredis|pg|typeorm|@nestjs/(bull|typeorm))/'],
      },
    },
    {
      name: 'agent-runtime-is-no-service',
      severity: 'error',
      comment:
        'libs/agent-runtime stands in for the agent runtime in tests, bench and scripts; no service or library uses it.',
      from: { path: ['^apps/[^/]+/src/', '^libs/(?!agent-runtime/)'] },
      to: { path: '^libs/agent-runtime/' },
    },
    {
      name: 'console-shell-on-top',
      severity: 'error',
      comment:
        "The console's shell (app/: the page, its frame, the routes) imports the features; only main.tsx imports it.",
      from: { path: '^apps/console/src/', pathNot: ['^apps/console/src/app/', '^apps/console/src/main\\.tsx$'] },
      to: { path: '^apps/console/src/app/' },
    },
    {
      name: 'parent-knows-no-subfeature',
      severity: 'error',
      comment: "A feature's own files import none of its sub-features; the sub-features build on their parent.",
      from: { path: '^apps/[^/]+/src/([^/]+)/[^/]+$' },
      to: { path: '^apps/[^/]+/src/$1/(?!dto/|migrations/)[^/]+/' },
    },
  ],
  options: {
    // Packages are shown (for the contract rules) but not followed.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^dist/', '\\.spec\\.ts$', '\\.e2e-spec\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
