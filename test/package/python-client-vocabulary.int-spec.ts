import * as contract from 'process-notifications-contract';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// The Python client's closed sets, read from its one vocabulary file by Debian's Python (the
// interpreter its tests and CI use), and the bound of its batch consume.
function pythonVocabulary(): Record<string, unknown> {
  const script = [
    'import json',
    'from process_notifications import vocabulary as v',
    'from process_notifications.consume_batcher import MAX_CONSUME_BATCH',
    'print(json.dumps({**{name: getattr(v, name) for name in dir(v) if name.isupper()}, "MAX_CONSUME_BATCH": MAX_CONSUME_BATCH}))',
  ].join('\n');
  const output = execFileSync('/usr/bin/python3', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: resolve(repo, 'libs/process-notifications-py/src') },
  });
  return JSON.parse(output) as Record<string, unknown>;
}

// Python cannot import the contract package, so its client spells the closed sets out once, in
// vocabulary.py; each must equal the contract package's (the one definition the service, the
// library and the TypeScript client use), or a Python loop would be told a value the server never
// sends (or miss one it does): a code, disposition, cause or kind added to the contract fails here
// until libs/process-notifications-py/src/process_notifications/vocabulary.py has it.
describe("the Python client's closed sets", () => {
  const python = pythonVocabulary();

  it.each([
    ['PROCESS_STATES', contract.PROCESS_STATES],
    ['TERMINAL_REASONS', contract.TERMINAL_REASONS],
    ['TERMINAL_PAIRS', contract.TERMINAL_PAIRS],
    ['LIFECYCLE_KINDS', contract.LIFECYCLE_KINDS],
    ['OUTCOME_KINDS', contract.OUTCOME_KINDS],
    ['JOURNAL_KINDS', contract.JOURNAL_KINDS],
    ['STOP_CAUSES', contract.STOP_CAUSES],
    ['LOOP_ENGINES', contract.LOOP_ENGINES],
    ['LOOP_STATES', contract.LOOP_STATES],
    ['LOOP_EVENT_TYPES', contract.LOOP_EVENT_TYPES],
    ['SESSION_STATES', contract.SESSION_STATES],
    ['SUCCESS_DISPOSITIONS', contract.SUCCESS_DISPOSITIONS],
    ['PROBLEM_DISPOSITIONS', contract.PROBLEM_DISPOSITIONS],
    ['PROBLEM_CODES', contract.PROBLEM_CODES],
    ['MAX_CONSUME_BATCH', contract.MAX_CONSUME_BATCH],
  ])('%s equal the contract package', (name, definition) => {
    expect(python[name]).toEqual(definition);
  });

  it('has no closed set this test does not compare', () => {
    expect(Object.keys(python).sort()).toEqual(
      [
        'JOURNAL_KINDS',
        'LIFECYCLE_KINDS',
        'MAX_CONSUME_BATCH',
        'LOOP_ENGINES',
        'LOOP_EVENT_TYPES',
        'LOOP_STATES',
        'OUTCOME_KINDS',
        'PROBLEM_CODES',
        'PROBLEM_DISPOSITIONS',
        'PROCESS_STATES',
        'SESSION_STATES',
        'STOP_CAUSES',
        'SUCCESS_DISPOSITIONS',
        'TERMINAL_PAIRS',
        'TERMINAL_REASONS',
      ].sort(),
    );
  });
});
