/** Jest in native ESM mode (run through `node --experimental-vm-modules`, see package.json). */
export default {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/libs', '<rootDir>/src', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.int-spec.ts'],
  moduleNameMapper: {
    '^nestjs-process-notifications$': '<rootDir>/libs/process-notifications/src/index.ts',
    '^process-notifications-client$': '<rootDir>/libs/process-notifications-client/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60000,
};
