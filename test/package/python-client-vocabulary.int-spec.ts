import * as library from 'nestjs-process-notifications';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBLEM_TYPES } from '../../src/http/problem-types.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

// The Python client's closed sets, read from its one vocabulary file by Debian's Python (the
// interpreter its tests and CI use).
function pythonVocabulary(): Record<string, unknown> {
  const script = [
    'import json',
    'from process_notifications import vocabulary as v',
    'print(json.dumps({name: getattr(v, name) for name in dir(v) if name.isupper()}))',
  ].join('\n');
  const output = execFileSync('/usr/bin/python3', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: resolve(repo, 'libs/process-notifications-py/src') },
  });
  return JSON.parse(output) as Record<string, unknown>;
}

// Each copy must equal the service's own definition, or a Python loop would be told a value the
// server never sends (or miss one it does): a code, disposition, cause or kind added to the
// service fails here until libs/process-notifications-py/src/process_notifications/vocabulary.py has it.
describe("the Python client's copy of the closed sets", () => {
  const python = pythonVocabulary();

  it.each([
    ['PROCESS_STATES', library.PROCESS_STATES],
    ['TERMINAL_REASONS', library.TERMINAL_REASONS],
    ['TERMINAL_PAIRS', library.TERMINAL_PAIRS],
    ['LIFECYCLE_KINDS', library.LIFECYCLE_KINDS],
    ['OUTCOME_KINDS', library.OUTCOME_KINDS],
    ['JOURNAL_KINDS', library.JOURNAL_KINDS],
    ['STOP_CAUSES', library.STOP_CAUSES],
    ['LOOP_ENGINES', library.LOOP_ENGINES],
    ['LOOP_STATES', library.LOOP_STATES],
    ['SESSION_STATES', library.SESSION_STATES],
    ['SUCCESS_DISPOSITIONS', library.SUCCESS_DISPOSITIONS],
    [
      'PROBLEM_DISPOSITIONS',
      library.DISPOSITIONS.filter((disposition) => !(library.SUCCESS_DISPOSITIONS as readonly string[]).includes(disposition)),
    ],
    ['PROBLEM_CODES', Object.keys(PROBLEM_TYPES)],
  ])('%s equal the service', (name, definition) => {
    expect(python[name]).toEqual(definition);
  });

  it('has no closed set this test does not compare', () => {
    expect(Object.keys(python).sort()).toEqual(
      [
        'JOURNAL_KINDS',
        'LIFECYCLE_KINDS',
        'LOOP_ENGINES',
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
