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
