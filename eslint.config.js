import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importBoundaries } from './import-boundaries.js';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.d.ts', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', Response: 'readonly', Request: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Shipped code (and the Fluent Bit model the tests trust): a function has one job, and none is a framework.
    files: ['server/{core,events,postgresql,opensearch}/src/**/*.ts', 'init-job/src/**/*.ts', 'console/src/**/*.{ts,tsx}', 'fluent-bit/model/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150, IIFEs: true }] },
  },
  ...importBoundaries,
);
