// ESLint (flat config): typescript-eslint's recommended rules over every TypeScript source, test
// and benchmark; formatting is Prettier's (prettier.config.js), so no stylistic rules here.
'use strict';
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'test-results/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...require('globals').node } },
    rules: {
      // Raw database rows, JSON payloads and driver results are untyped at the boundary; they are
      // converted by row readers and schemas right after. Everywhere else types are explicit.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }],
      // Names, idents and paths are sanitized by matching control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    // The web interface's own browser script: a classic script with the browser's globals.
    files: ['plugins/web/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...require('globals').browser } },
  },
  {
    files: ['**/*.js'],
    ignores: ['plugins/web/assets/**'],
    languageOptions: { sourceType: 'commonjs' },
    // CommonJS scripts require node's modules by the names of their globals (`crypto`).
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
);
