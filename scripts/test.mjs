#!/usr/bin/env node
/*
 * `npm test`: Jest, then the Python client's checks (that the generated sync client is current,
 * mypy --strict and pytest, with Debian's /usr/bin/python3), and a closing line that counts both:
 * `tests: N passed, N failed` (the generated-file check and mypy count as one test each). Exits
 * non-zero when anything failed.
 *
 * Arguments go to Jest, and then only Jest runs (`npm test -- test/client`) unless PN_TEST_PYTHON=on;
 * PN_TEST_PYTHON=only runs only the Python side, PN_TEST_PYTHON=off only Jest.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { URL, fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const PYTHON = '/usr/bin/python3';
const PYTHON_PACKAGE = join(repo, 'libs/process-notifications-py');
const jestArgs = process.argv.slice(2);
const mode = process.env.PN_TEST_PYTHON ?? (jestArgs.length > 0 ? 'off' : 'on');
const scratch = mkdtempSync(join(tmpdir(), 'pn-test-'));
const totals = { passed: 0, failed: 0 };

/** Jest, with its own reporters; the summary reporter also leaves its counts in a file for us. */
function jest() {
  const summary = join(scratch, 'jest-summary.json');
  const run = spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', join(repo, 'node_modules/jest/bin/jest.js'), ...jestArgs],
    { cwd: repo, stdio: 'inherit', env: { ...process.env, PN_TEST_SUMMARY_FILE: summary } },
  );
  if (existsSync(summary)) {
    const counts = JSON.parse(readFileSync(summary, 'utf8'));
    totals.passed += counts.passed;
    totals.failed += counts.failed;
  }
  // Jest failed without a failing test to show for it (a crash, a bad argument): one failure.
  if (run.status !== 0 && (!existsSync(summary) || totals.failed === 0)) totals.failed += 1;
}

/**
 * client.py is generated from async_client.py (scripts/generate_sync.py): one test, failed (with
 * the difference shown) when the file on disk is not what the script writes.
 */
function generatedClient() {
  console.log('\n> scripts/generate_sync.py --check (libs/process-notifications-py)');
  const run = spawnSync(PYTHON, ['scripts/generate_sync.py', '--check'], { cwd: PYTHON_PACKAGE, stdio: 'inherit' });
  if (run.status === 0) totals.passed += 1;
  else totals.failed += 1;
}

/** mypy --strict over the Python package and its tests: one test, passed or failed. */
function mypy() {
  console.log('\n> mypy --strict (libs/process-notifications-py)');
  const run = spawnSync(PYTHON, ['-m', 'mypy', '--strict'], { cwd: PYTHON_PACKAGE, stdio: 'inherit' });
  if (run.status === 0) totals.passed += 1;
  else totals.failed += 1;
}

/** pytest, counted from its JUnit XML report. */
function pytest() {
  console.log('\n> pytest (libs/process-notifications-py)');
  const report = join(scratch, 'pytest.xml');
  const run = spawnSync(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${report}`], {
    cwd: PYTHON_PACKAGE,
    stdio: 'inherit',
    // The tests start the built server and supervisor with this Node.
    env: { ...process.env, PN_NODE: process.execPath },
  });
  const counts = existsSync(report) ? junitCounts(readFileSync(report, 'utf8')) : undefined;
  if (counts) {
    totals.passed += counts.passed;
    totals.failed += counts.failed;
  }
  // pytest failed with nothing counted as failed (it could not start, or collect): one failure.
  if (run.status !== 0 && (!counts || counts.failed === 0)) totals.failed += 1;
}

/** Passed and failed (failures plus errors) of a JUnit XML report's test suites. */
function junitCounts(xml) {
  let passed = 0;
  let failed = 0;
  for (const [, attributes] of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
    const count = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(attributes)?.[1] ?? 0);
    const bad = count('failures') + count('errors');
    failed += bad;
    passed += count('tests') - bad - count('skipped');
  }
  return { passed, failed };
}

try {
  if (mode !== 'only') jest();
  if (mode !== 'off') {
    if (existsSync(PYTHON)) {
      generatedClient();
      mypy();
      pytest();
    } else {
      console.error(`\n${PYTHON} is missing: install Debian's python3 with the packages docs/development.md lists`);
      totals.failed += 1;
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed`);
process.exitCode = totals.failed > 0 ? 1 : 0;
