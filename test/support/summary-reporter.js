import { writeSync } from 'node:fs';

/**
 * Prints the closing line CI reads: `tests: N passed, N failed`, as the very last line
 * (after Jest's own summary). Suites that fail to load count as failures, so a broken file
 * can never pass silently.
 */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.once('exit', () => writeSync(1, `\ntests: ${results.numPassedTests} passed, ${failed} failed\n`));
  }
}
