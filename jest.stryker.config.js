import base from './jest.config.js';

// Left out of mutation runs: the suites that drive the built code in dist/ in child processes
// (the crash test, the server-process fault tests, the supervisor, the package test: mutants
// never reach them); the 100k restore, the concurrency stress, the fuzzer (random
// inputs make a mutant's fate vary between runs) and the PostgreSQL suites are slow and add
// nothing the in-process SQLite suites do not already check for these folders.
const SLOW_OR_OUT_OF_REACH = [
  'test/durability/crash\\.',
  'test/durability/disk-full\\.',
  'test/durability/stalled-postgres\\.',
  'test/durability/sigterm-under-load\\.',
  'test/durability/server-process\\.',
  'test/durability/start-up-errors\\.',
  'test/durability/build-and-migrate\\.',
  'test/package/',
  'test/supervisor/',
  'test/durability/restore-100k\\.',
  'test/durability/shutdown\\.',
  'test/notifications/notification-concurrency\\.',
  'test/notifications/notification-postgres\\.',
  'test/e2e/postgres\\.',
  'test/e2e/notify-fuzz\\.',
  'test/e2e/events\\.',
  'test/embedding\\.',
  // Server processes from dist/ too (the floor benchmark server, the cluster of server processes).
  'test/bench/',
  'test/cluster/several-nodes\\.',
];

/** The Jest configuration Stryker runs for each mutant (see stryker.config.mjs). */
export default {
  ...base,
  testPathIgnorePatterns: ['/node_modules/', ...SLOW_OR_OUT_OF_REACH.map((pattern) => `<rootDir>/${pattern}`)],
  reporters: ['default'],
};
