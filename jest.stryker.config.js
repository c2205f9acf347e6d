import base from './jest.config.js';

/**
 * The Jest configuration Stryker runs for each mutant: the whole suite except the crash tests,
 * which drive the built code in dist/ in a child process (Stryker's mutants never reach it),
 * and the 100k-record restore, a load test that would run for every mutant it covers.
 */
export default {
  ...base,
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/durability/crash\\.', '<rootDir>/test/durability/restore-100k\\.'],
  reporters: ['default'],
};
