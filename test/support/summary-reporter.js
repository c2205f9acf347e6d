/**
 * Prints the closing line CI reads: `tests: N passed, N failed`.
 * Suites that fail to load count as failures, so a broken file can never pass silently.
 */
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\ntests: ${results.numPassedTests} passed, ${failed} failed\n`);
  }
}
