// TypeScript as ESM, types stripped by esbuild (tests/setup/esbuild-transform.js); types are checked by `npm run typecheck`.
const typescript = {
  '^.+\\.ts$': '<rootDir>/tests/setup/esbuild-transform.js',
};

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: typescript,
  testEnvironment: 'node',
  // The transformed files and jest's file map, kept with the checkout's other caches, not in /tmp.
  cacheDirectory: '<rootDir>/node_modules/.cache/jest',
  // jest's module runtime, with what a file leaves behind in its worker kept from costing the files after
  // it: V8's code cache of the modules it compiled is used again, its AsyncLocalStorage is disabled
  // (tests/setup/jest-runtime.cjs).
  runtime: '<rootDir>/tests/setup/jest-runtime.cjs',
};

/** Tests in tests/unit that package, bundle or lint the whole service (the `build` project). */
const BUILD_TESTS = [
  '/tests/unit/package-template.test.ts',
  '/tests/unit/offline-bundle.test.ts',
  '/tests/unit/openapi-lint.test.ts',
  '/tests/unit/layering.test.ts',
];

/** @type {import('jest').Config} */
const config = {
  // A global option in jest 30 (ignored per project). Generous because the 2-core machines also run
  // DynamoDB Local, the emulator and serverless-offline; tests that hang still fail.
  testTimeout: 60_000,
  // One DynamoDB Local, one emulator and (when e2e runs) one serverless-offline per test run.
  globalSetup: '<rootDir>/tests/setup/global-setup.js',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.js',
  // The longest files first, with or without jest's timing cache (a fresh clone has none).
  testSequencer: '<rootDir>/tests/setup/sequencer.js',
  projects: [
    // The edit-test loop (`npm run test:unit`): no database, no serverless-offline, no browser.
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/tests/unit/**/*.test.ts', '<rootDir>/tests/emulator/**/*.test.ts'],
      testPathIgnorePatterns: BUILD_TESTS,
    },
    // The service as it is built and checked whole: packaging, bundling, the document's lint, the layer rules.
    // Minutes of CPU between them, so not in the edit-test loop; `npm test` runs them like the rest.
    { ...common, displayName: 'build', testMatch: BUILD_TESTS.map((name) => `<rootDir>${name}`) },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
      // Each integration file works in a table of its own, so files run in parallel unseen by each other.
      setupFiles: ['<rootDir>/tests/setup/table-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/tests/setup/table-lifecycle.ts'],
    },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'] },
    // The console in Debian's Chromium (playwright-core) against the local stack and its front door.
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/tests/browser/**/*.test.ts'] },
  ],
};

export default config;
