import { writeFileSync, writeSync } from 'node:fs';

/**
 * Prints the closing line CI reads: `tests: N passed, N failed`, as the very last line
 * (after Jest's own summary). Suites that fail to load count as failures, so a broken file
 * can never pass silently. With PN_TEST_SUMMARY_FILE set (by scripts/test.mjs, which runs the
 * Python tests after Jest and prints the line that counts both) it also writes the counts there.
 */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const file = process.env.PN_TEST_SUMMARY_FILE;
    if (file) writeFileSync(file, JSON.stringify({ passed: results.numPassedTests, failed }));
    process.once('exit', () => writeSync(1, `\ntests: ${results.numPassedTests} passed, ${failed} failed\n`));
  }
}
