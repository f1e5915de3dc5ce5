// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import herald from './eslint/plugin.js';

/**
 * core's layers, bottom first (docs/ARCHITECTURE.md "Layers of core"). Each layer lists groups of
 * folders (a trailing `/`) or files; groups of one layer import nothing of each other.
 */
const CORE_LAYERS = [
  [['shared/']],
  [['schemas/']],
  [['validation/']],
  [['rules/']],
  [['storage/']],
  [['model/', 'crypto/', 'ordering/', 'asyncapi/']],
  [['handover/']],
  [['context.ts']],
  [['engine/'], ['events/', 'subscribers/', 'deliveries/', 'retention/']],
  [['herald.ts', 'types.ts', 'index.ts']],
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.tools/**', '.data/**', '.bench/**', 'charts/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['packages/*/src/**/*.{ts,tsx}'],
    plugins: { herald },
    rules: {
      'herald/no-import-cycle': 'error',
      'herald/layers': ['error', { root: 'packages/core/src', layers: CORE_LAYERS }],
    },
  },
);
