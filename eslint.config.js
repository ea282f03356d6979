// ESLint flat config (https://eslint.org/docs/latest/use/configure/configuration-files), run by `npm run lint`.
// TypeScript is linted with typescript-eslint's type-aware recommended set
// (https://typescript-eslint.io/users/configs#recommended-type-checked); the few changes to it are below, each
// with its reason. Formatting is Prettier's job (`npm run format`), layering is dependency-cruiser's
// (.dependency-cruiser.cjs): no rule here duplicates them. No rule is switched off inside a source file.
import eslint from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.dist.*',
      'data/',
      '.tollgate/',
      'test-artifacts/',
      'test/fixtures/',
      'test/golden/',
    ],
  },
  eslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Unused names are errors, except the `_`-prefixed ones a signature or destructuring must name.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // An async function that implements a promise-returning port (the memory adapters, Fastify hooks and
      // handlers) need not await: `async` is what turns its throws into rejections, which callers rely on.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped JSON bodies of HTTP answers and build deliberately malformed inputs: there the no-unsafe-*
    // family and no-explicit-any would ask for casts that add no safety. unbound-method misfires on
    // `expect(mock.method)`, the way vitest names a spy. Every other type-aware rule applies to tests too.
    files: ['test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Only a process's composition root (infra/processes/) reads the environment and ends the process;
    // so do the entry files of the developer scripts (npm run infra:up, infra:redis-cluster, build).
    files: ['gateway/**/*.ts', 'consumers/**/*.ts', 'schemas/**/*.ts', 'infra/**/*.ts'],
    ignores: [
      '**/*.test.ts',
      'infra/processes/**',
      'infra/services.ts',
      'infra/redis-cluster/redis-cluster-cli.ts',
      'infra/build/**',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only a composition root in infra/processes/ reads the environment; take the value as a parameter.',
        },
        {
          object: 'process',
          property: 'exit',
          message: 'Only a composition root in infra/processes/ ends the process; return or throw instead.',
        },
      ],
    },
  },
  {
    // The console's browser modules: plain ES modules served as they are, with the browser's globals.
    files: ['gateway/console/web/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    // Node scripts written in JavaScript (build, worker entries, this file).
    files: ['**/*.mjs', '**/*.cjs', 'eslint.config.js', 'infra/**/*.js', 'test/**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
