/** Integration tests (test/) and plugin tests (plugins/<name>/test/), TypeScript through ts-jest. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/plugins'],
  testMatch: ['**/test/**/*.test.ts'],
  modulePathIgnorePatterns: ['<rootDir>/plugins/.*/dist/', '<rootDir>/core/.*/dist/.*package\\.json$'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
