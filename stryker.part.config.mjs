import base from './stryker.config.mjs';

/**
 * One part of the mutation run (scripts/mutate-parts.sh): the files come from `--mutate`, the
 * part's name from MUTATE_PART, so each part writes its own reports and incremental file.
 */
const part = process.env.MUTATE_PART ?? 'all';

export default {
  ...base,
  jest: {
    ...base.jest,
    enableFindRelatedTests: true,
    // A first, fast pass may run only the test files named in MUTATE_TESTS (comma-separated);
    // what survives it is run again with every related test file (scripts/mutate-parts.sh).
    ...(process.env.MUTATE_TESTS ? { config: { testMatch: process.env.MUTATE_TESTS.split(',').map((file) => `<rootDir>/${file}`) } } : {}),
  },
  concurrency: 1,
  htmlReporter: { fileName: `reports/mutation/parts/${part}.html` },
  jsonReporter: { fileName: `reports/mutation/parts/${part}.json` },
  incremental: true,
  incrementalFile: `reports/mutation/parts/${part}.incremental.json`,
};
