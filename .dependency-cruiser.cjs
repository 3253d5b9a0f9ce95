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
      comment: "Apps talk through HTTP, queues and libs/contracts, never through each other's code.",
      from: { path: '^apps/([^/]+)/' },
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
      // A feature's dto/ folder is part of the feature; the console's app/ folder is its router and shell.
      from: { path: '^apps/(connector-service|approval-service|document-system-simulator)/src/', pathNot: '/dto$' },
      to: { circular: true, pathNot: '/dto$' },
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
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '^dist/', '\\.spec\\.ts$', '\\.e2e-spec\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
