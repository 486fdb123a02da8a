// ts-jest in ESM mode; tsconfig's isolatedModules makes it transpile only (types are checked by `npm run typecheck`).
const tsJest = {
  '^.+\\.ts$': ['ts-jest', { useESM: true }],
};

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: tsJest,
  testEnvironment: 'node',
};

/** @type {import('jest').Config} */
const config = {
  // A global option in jest 30 (ignored per project). Generous because the 2-core machines also run
  // DynamoDB Local, the emulator and serverless-offline; tests that hang still fail.
  testTimeout: 60_000,
  // One DynamoDB Local, one emulator and (when e2e runs) one serverless-offline per test run.
  globalSetup: '<rootDir>/tests/setup/global-setup.js',
  globalTeardown: '<rootDir>/tests/setup/global-teardown.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts', '<rootDir>/tests/emulator/**/*.test.ts'] },
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
