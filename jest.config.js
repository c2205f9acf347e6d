/** Jest in native ESM mode (run through `node --experimental-vm-modules`, see package.json). */

// From Node 24.9 on, Jest's module loader require()s an ES module itself: the file must then not
// be turned into CommonJS (it would be run as a module, where `exports` does not exist).
const [major, minor] = process.versions.node.split('.').map(Number);
const jestRequiresEsm = major > 24 || (major === 24 && minor >= 9);

export default {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/libs', '<rootDir>/src', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.int-spec.ts'],
  moduleNameMapper: {
    '^nestjs-process-notifications$': '<rootDir>/libs/process-notifications/src/index.ts',
    '^process-notifications-client$': '<rootDir>/libs/process-notifications-client/src/index.ts',
    '^process-notifications-contract$': '<rootDir>/libs/process-notifications-contract/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
    // The OpenAPI UI's static files are served by @fastify/static, which require()s the ESM-only
    // content-disposition: Node 20 does that natively, Jest's module loader not before Node 24.9.
    ...(jestRequiresEsm
      ? {}
      : {
          '/content-disposition/dist/index\\.js$': [
            'babel-jest',
            { babelrc: false, configFile: false, plugins: ['@babel/plugin-transform-modules-commonjs'] },
          ],
        }),
  },
  transformIgnorePatterns: jestRequiresEsm
    ? ['/node_modules/']
    : ['/node_modules/(?!(@fastify/static/node_modules/)?content-disposition/)'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60000,
};
