// ESLint (flat config): the recommended JavaScript and typescript-eslint rules, type-aware where a
// rule needs types (floating promises are the classic Lambda bug: a write that never finishes
// before the function is frozen), with Prettier owning layout. Layer arrows and cycles are
// dependency-cruiser's job (.dependency-cruiser.cjs); the import rules below keep the names that
// belong inside tables/ (keys, raw items, the SDK) from leaking upwards.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** What only tables/ may touch: the DynamoDB SDK, the client, transactions, key builders and raw-item converters. */
const TABLE_INTERNALS = {
  paths: [
    { name: '@aws-sdk/client-dynamodb', message: 'Only tables/ talks to DynamoDB.' },
    { name: '@aws-sdk/lib-dynamodb', message: 'Only tables/ talks to DynamoDB.' },
  ],
  patterns: [
    { group: ['**/tables/client', '**/tables/transactions'], message: 'The DynamoDB client and transactions are internal to tables/.' },
    { group: ['**/tables/entity'], message: 'Entities are declared in tables/ (tables/entity.ts); lib/ imports their types.' },
    {
      group: ['**/tables/*', '**/tables/writes/*'],
      importNamePattern: '^[a-z]\\w*(Key|Keys|FromItem|Item|Items|Write|Writes|Put)$',
      message: 'Keys and raw items stay in tables/: use (or add) a named access pattern there.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/', 'generated/', 'coverage/', '.esbuild/', '.esbuild-offline-*/', '.serverless/', '.data/', 'console/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      // Handlers and platform stubs are async by contract even when they have nothing to await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      // The handlers' request shapes come from validated schemas; `any` stays allowed where a type
      // would only restate an external library's looseness, and is flagged elsewhere by review.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  { files: ['lib/**/*.ts', 'functions/**/*.ts', 'core/**/*.ts'], rules: { 'no-restricted-imports': ['error', TABLE_INTERNALS] } },
  // The web console: a browser app with its own tsconfig (console/tsconfig.json).
  {
    files: ['console/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // onClick={async () => …} is how React handlers start async work; its promise is handled inside.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false, arguments: false } }],
    },
  },
  { files: ['**/*.js', '**/*.cjs', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  // Serverless 3 loads local plugins with require(), and the dependency-cruiser config is CommonJS.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
  prettier,
);
