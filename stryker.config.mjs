/**
 * Mutation testing (StrykerJS): `npm run mutate`. Not part of `npm test`: a run takes many
 * minutes. How to run it in parts and add the scores up: docs/development.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  // The second one works around an instrumenter bug that drops the decorators of a parameter
  // with a default value (see the file).
  plugins: ['@stryker-mutator/*', './scripts/stryker-parameter-decorators.mjs'],
  // Jest runs in native ESM mode, as in `npm test`.
  testRunnerNodeArgs: ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning'],
  // enableFindRelatedTests: a mutant's run loads only the test files that import its file
  // (through Jest's dependency graph), not all of them; a test that covers a mutant executes its
  // file and so imports it, so no kill is lost (19 of the 32 files for a library file, 7 for the
  // auth guard).
  jest: { projectType: 'custom', configFile: 'jest.stryker.config.js', enableFindRelatedTests: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // Each mutant runs only the tests that execute its code.
  coverageAnalysis: 'perTest',
  // Static mutants (code run once at import: decorator factories, module-level regexes, entity
  // metadata) each need the whole suite reloaded: about 250 of them would add hours to a run.
  // They are reported as "Ignored" and left out of the score.
  ignoreStatic: true,
  // The machine has two cores: one Jest worker per core.
  concurrency: 2,
  mutate: [
    'libs/process-notifications/src/journal/**/*.ts',
    'libs/process-notifications/src/persistence/journal/journal-writer.service.ts',
    'libs/process-notifications/src/persistence/journal/journal-write-queue.ts',
    'libs/process-notifications/src/persistence/transaction/journal-transaction-runner.ts',
    'libs/process-notifications/src/persistence/journal/journal-read-connection.ts',
    'libs/process-notifications/src/persistence/journal/journal-health-probe.ts',
    'libs/process-notifications/src/persistence/leases/journal-fencing.ts',
    'libs/process-notifications/src/persistence/journal/journal-commit-hint.ts',
    'libs/process-notifications/src/persistence/journal/journal-rows.ts',
    'libs/process-notifications/src/persistence/durability/journal-outage.ts',
    'libs/process-notifications/src/persistence/dialects/store-failure.ts',
    'libs/process-notifications/src/commands/**/*.handler.ts',
    'libs/process-notifications/src/loops/process-loop.ts',
    'libs/process-notifications/src/validation/**/*.ts',
    'src/http/bearer-auth.guard.ts',
    'src/http/problem-details.filter.ts',
    '!**/*.spec.ts',
  ],
  ignorePatterns: ['dist', 'data', 'coverage', 'reports', '*.db'],
  reporters: ['progress', 'clear-text', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: null },
  // Generous: the machine is shared, and a slow run must not pass for a killed mutant.
  timeoutFactor: 2.5,
  timeoutMS: 8000,
  tempDirName: '.stryker-tmp',
};
