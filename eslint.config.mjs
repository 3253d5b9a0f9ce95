// Lint: the architecture rules that are about files (who may import TypeORM, how large a file may grow)
// live here; the rules about the import graph (libs never import apps, no app imports another, no cycles
// between files or feature folders) live in .dependency-cruiser.cjs. docs/architecture.md is the map.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

// Persistence has one owner: only repositories, entities, migrations and the database library touch TypeORM.
const persistenceFiles = [
  '**/*.repository.ts',
  '**/*.entity.ts',
  '**/migrations/**',
  'libs/database/**',
  'libs/testing/**',
  '**/*.spec.ts',
  '**/*.e2e-spec.ts',
  '**/test/**',
  'bench/**',
  'scripts/**',
];

// One convention per kind (docs/architecture.md): response mappers live in a feature's dto/*.response.ts, and
// jobs are added only through addJob / addJobs of libs/queue. The selectors see a queue by its name, so every
// Queue is named `queue` or `…Queue`.
const serverCode = ['apps/{connector-service,approval-service,document-system-simulator}/src/**/*.ts'];
const addsOnlyThroughLibsQueue = [
  {
    selector:
      "CallExpression[callee.property.name='add']:matches([callee.object.name=/[qQ]ueue$/], [callee.object.property.name=/[qQ]ueue$/])",
    message: 'Add jobs with addJob (libs/queue), typed by the queue contract.',
  },
  {
    selector: "CallExpression[callee.property.name='addBulk']",
    message: 'Add jobs with addJobs (libs/queue): it rejects when Redis refuses one, where addBulk resolves.',
  },
  {
    selector:
      'Identifier[typeAnnotation.typeAnnotation.typeName.name=/^(Queue|ContractQueue)$/]:not([name=/[qQ]ueue$/]), PropertyDefinition[typeAnnotation.typeAnnotation.typeName.name=/^(Queue|ContractQueue)$/]:not([key.name=/[qQ]ueue$/])',
    message: 'Name a queue `queue` or `…Queue`, so that the lint can tell it adds jobs only through libs/queue.',
  },
];
const mapperMessage =
  "A response mapper (a function that returns a view) lives in the feature's dto/<thing>.response.ts.";
const mappersOnlyInDto = [
  {
    selector:
      ':matches(Program, Program > ExportNamedDeclaration) > FunctionDeclaration[returnType.typeAnnotation.typeName.name=/View$/]',
    message: mapperMessage,
  },
  {
    selector:
      ':matches(Program, Program > ExportNamedDeclaration) > VariableDeclaration > VariableDeclarator > :matches(ArrowFunctionExpression, FunctionExpression)[returnType.typeAnnotation.typeName.name=/View$/]',
    message: mapperMessage,
  },
];
const controllerMessage =
  "A controller file exports its controller only: mappers go to the feature's dto/*.response.ts.";
const controllerExportsItsClass = [
  { selector: 'ExportNamedDeclaration > FunctionDeclaration', message: controllerMessage },
  {
    selector:
      'ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > :matches(ArrowFunctionExpression, FunctionExpression)',
    message: controllerMessage,
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'apps/console/dist/**', 'tools/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'max-lines': ['error', { max: 250, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['apps/*/src/**/*.ts'],
    ignores: persistenceFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'typeorm',
              message: 'Only repositories, entities and migrations use TypeORM: add a repository method.',
            },
            {
              name: '@nestjs/typeorm',
              importNames: ['InjectRepository', 'InjectDataSource', 'InjectEntityManager'],
              message: 'Only repositories inject TypeORM handles.',
            },
          ],
        },
      ],
    },
  },
  {
    files: serverCode,
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-syntax': ['error', ...addsOnlyThroughLibsQueue, ...mappersOnlyInDto] },
  },
  {
    files: ['apps/*/src/**/*.controller.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...addsOnlyThroughLibsQueue, ...mappersOnlyInDto, ...controllerExportsItsClass],
    },
  },
  {
    files: ['apps/*/src/**/dto/*.response.ts'],
    rules: { 'no-restricted-syntax': ['error', ...addsOnlyThroughLibsQueue] },
  },
  {
    files: ['apps/console/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests and scripts may be long (one journey, one scenario) and may use test doubles loosely.
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/test/**', 'bench/**', 'scripts/**'],
    rules: {
      'max-lines': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
