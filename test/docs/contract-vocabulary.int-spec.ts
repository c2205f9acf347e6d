import * as contract from 'process-notifications-contract';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/doc-commands.js';

// The contract package is the one definition of the wire vocabulary, and every test that iterates
// over a closed set takes it from there: this holds the package to the words of docs/contract.md,
// so those tests test the contract, not the code. Each set is read from the sentence or table
// that states it.
const text = readFileSync(join(REPO, 'docs/contract.md'), 'utf8');

/** The first match of `pattern` in the contract's text, or a failure naming what is missing. */
function stated(pattern: RegExp, what: string): RegExpExecArray {
  const match = pattern.exec(text);
  if (!match) throw new Error(`docs/contract.md no longer states ${what} (${pattern.source})`);
  return match;
}

/** The backquoted words of a passage: `a`, `b` or `c` gives [a, b, c]. */
const quoted = (passage: string): string[] => [...passage.matchAll(/`([^`]+)`/g)].map((word) => word[1]!);

describe('the contract package, held to docs/contract.md', () => {
  it('has the full vocabularies of states and reasons (section 2), in their order', () => {
    const [, states, reasons] = stated(/The full vocabularies: states `([^`]+)`; reasons `([^`]+)`/, 'the vocabularies');
    expect(contract.PROCESS_STATES).toEqual(states!.split(/\s+/));
    expect(contract.TERMINAL_REASONS).toEqual(reasons!.split(/\s+/));
  });

  it('has exactly the table of terminal state/reason pairs (section 2)', () => {
    const [, table] = stated(
      /Terminal state\/reason pairs \(the closed set\):\n\n\| state \| allowed reasons \|\n\|---\|---\|\n((?:\|.*\|\n)+)/,
      'the pairs',
    );
    const rows = table!
      .trim()
      .split('\n')
      .map((row) => row.split('|').map((cell) => quoted(cell)))
      .map(([, [state], reasons]) => [state, reasons]);
    expect(Object.entries(contract.TERMINAL_PAIRS)).toEqual(rows);
  });

  it('has the lifecycle kinds (section 6) and the reasons a stop is requested with', () => {
    const [, kinds] = stated(/\| `kind` \| string \| `([^`]+)` \|/, 'the lifecycle kinds');
    expect(contract.LIFECYCLE_KINDS).toEqual(kinds!.split(/\s+/));
    const [, reasons] = stated(/`stop_requested`: state `starting` or `running`, (reason [^.]+)\./, 'the stop reasons');
    expect(contract.STOP_REASONS).toEqual(quoted(reasons!));
  });

  it("has the states a record's signal is allowed in, and the rule of its name (section 6)", () => {
    const [, rule, states] = stated(
      /\| `signal` \| string, optional \| the name of the POSIX signal that ended the command \((`SIG` and [^,]+), e\.g\. `SIGSEGV`\); only allowed on `completed` with (state [^(]+) \(field `signal`\) \|/,
      'the signal rule',
    );
    expect(contract.SIGNAL_STATES).toEqual(quoted(states!));
    expect(rule).toBe('`SIG` and 2–10 upper-case letters or digits');
    expect(contract.PROCESS_SIGNAL_PATTERN).toBe('^SIG[A-Z0-9]{2,10}$');
  });

  it('has the outcome of a delivery: its dispositions and the causes of a stop (section 3)', () => {
    expect(contract.SUCCESS_DISPOSITIONS).toEqual(quoted(stated(/(`accepted` and `duplicate`) are success/, 'the successes')[1]!));
    const answers = stated(
      /6\. Dispatch to the loop and wait for its answer:\n\s+- `(\w+)`:[\s\S]*?\n\s+- `(\w+)`:[\s\S]*?\n\s+- `(\w+)`:/,
      'the answers',
    );
    const collision = stated(/disposition `(\w+)`\. Never\s+dispatched/, 'the collision');
    expect(contract.DISPOSITIONS).toEqual([...answers.slice(1), collision[1]]);
    expect(contract.STOP_CAUSES).toEqual(quoted(stated(/carrying the loop id and the cause \(([^)]+)\)/, 'the stop causes')[1]!));
  });

  it('has the engines and states of a loop and of a session (section 8)', () => {
    const [, engines] = stated(/body `\{engine\?: ([^,]+), loop_id\?\}`/, 'the engines');
    expect(contract.LOOP_ENGINES).toEqual([...engines!.matchAll(/"(\w+)"/g)].map((engine) => engine[1]));
    expect(contract.LOOP_STATES).toEqual(quoted(stated(/`state` is (`running` or `stopped`)/, 'the loop states')[1]!));
    expect(contract.SESSION_STATES).toEqual(quoted(stated(/`state` is (`open` or `closed`)/, 'the session states')[1]!));
  });

  it("has the events of a loop's stream (section 8)", () => {
    const [, table] = stated(/\| event \| `data` \| when \|\n\|---\|---\|---\|\n((?:\|.*\|\n)+)/, 'the events');
    expect(contract.LOOP_EVENT_TYPES).toEqual([...table!.matchAll(/^\| `(\w+)` \|/gm)].map((event) => event[1]));
  });

  it('has the kinds of a token, as whoami answers them (section 12.1)', () => {
    const [, answers] = stated(/\| `GET \/v1\/whoami` \| 200 ([^|]+) for the bearer token/, 'whoami');
    expect(contract.TOKEN_KINDS).toEqual([...answers!.matchAll(/kind: "(\w+)"/g)].map((kind) => kind[1]));
  });

  it("has the admin loop filters and the refusals' codes (section 12.1)", () => {
    const filters = stated(/`filter` is one of ([\s\S]+?)\.\n/, 'the filters')[1]!;
    // Each filter is the backquoted word that starts an item of the list, not the words in its parentheses.
    expect(contract.LOOP_FILTERS).toEqual([...filters.matchAll(/(?:^|, )`(\w+)`/g)].map((filter) => filter[1]));
    expect(contract.REFUSAL_CODES).toEqual(
      quoted(stated(/\.\.\/process-lifecycle` with ([\s\S]+?) \(a completion/, 'the refusal codes')[1]!),
    );
  });

  it('knows every problem code a table of the contract lists', () => {
    const rows = [...text.matchAll(/^\| `(\w+)` \| (\d{3}) \|/gm)].map((row) => row[1]!);
    expect(rows.length).toBeGreaterThan(15);
    expect(rows.filter((code) => !(contract.PROBLEM_CODES as readonly string[]).includes(code))).toEqual([]);
  });

  it('has the bounds and the headers the contract states', () => {
    expect(stated(/\{command_ids: \[\.\.\.\]\}`, 1 to (\d+) UUIDs/, 'the batch bound')[1]).toBe(String(contract.MAX_CONSUME_BATCH));
    expect(stated(/`limit` at most (\d+)/, 'the journal page bound')[1]).toBe(String(contract.MAX_JOURNAL_PAGE));
    expect(Number(stated(/\| `payload_too_large` \| 413 \| body over (\d+) KiB \|/, 'the body bound')[1]) * 1024).toBe(
      contract.MAX_BODY_BYTES,
    );
    expect(stated(/at most (\d+) bytes; only allowed on `completed`/, 'the diagnostic bound')[1]).toBe(
      String(contract.LIFECYCLE_DIAGNOSTIC_MAX_BYTES),
    );
    expect(stated(/\| `process_handle` \| string \| 1 to (\d+) bytes, only `A-Z a-z 0-9 - _` \|/, 'the handle rule')[1]).toBe('128');
    expect(contract.PROCESS_HANDLE_PATTERN).toBe('^[A-Za-z0-9_-]{1,128}$');
    for (const header of [contract.IDEMPOTENT_REPLAYED_HEADER, contract.RETRY_AFTER_HEADER, contract.LAST_EVENT_ID_HEADER]) {
      expect(text).toContain(`\`${header}`);
    }
  });
});
