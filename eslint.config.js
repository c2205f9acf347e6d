// ESLint (flat config) with typescript-eslint, as a Nest project ships it; Prettier formats.
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', 'coverage/**', 'reports/**', '.stryker-tmp/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Nest's own idiom: classes made only of decorators and DI.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    // Type-aware rules: the TypeScript project service reads tsconfig.json.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its failure; `void` says it is meant.
      '@typescript-eslint/no-floating-promises': 'error',
      // A new member of a closed union must be handled by every switch over it.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  {
    // No import cycles: a module must never be half-initialised when another one reads it. The
    // sources import `./x.js` for `./x.ts` (NodeNext), which only the TypeScript resolver maps back;
    // the plugin follows only files with the listed extensions (by default .js alone, which would
    // silently skip every module here). Type-only imports (`import type`) are erased by the build
    // and are not counted.
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The console's unit specs (run by Jest) and its Vite config are in no tsconfig: the
    // console's own tsconfig type-checks only what ships to the browser.
    files: ['apps/console/vite.config.ts', 'apps/console/src/**/*.spec.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
  },
);
