import base from './jest.config.js';

/**
 * The Jest configuration Stryker runs for each mutant: the whole suite except the durability
 * tests, which drive the built server in dist/ (a child process Stryker's mutants never reach).
 */
export default {
  ...base,
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/durability/'],
  reporters: ['default'],
};
