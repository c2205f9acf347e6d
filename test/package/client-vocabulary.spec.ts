import * as client from 'process-notifications-client';
import * as library from 'nestjs-process-notifications';
import { REFUSAL_CODES, type RefusalCode } from '../../src/refusals/refusal-log.service.js';
import { PROBLEM_TYPES, type ProblemCode } from '../../src/http/problem-types.js';

// The dependency-free client spells out the closed sets of the API; each copy must equal the
// service's own definition, or a client user would be told a value the server never sends (or
// miss one it does).
describe("the client's copy of the closed sets", () => {
  it.each([
    ['process states', client.PROCESS_STATES, library.PROCESS_STATES],
    ['terminal reasons', client.TERMINAL_REASONS, library.TERMINAL_REASONS],
    ['terminal pairs', client.TERMINAL_PAIRS, library.TERMINAL_PAIRS],
    ['lifecycle kinds', client.LIFECYCLE_KINDS, library.LIFECYCLE_KINDS],
    ['stop causes', client.STOP_CAUSES, library.STOP_CAUSES],
    ['loop engines', client.LOOP_ENGINES, library.LOOP_ENGINES],
    ['loop states', client.LOOP_STATES, library.LOOP_STATES],
    ['session states', client.SESSION_STATES, library.SESSION_STATES],
    ['success dispositions', client.SUCCESS_DISPOSITIONS, library.SUCCESS_DISPOSITIONS],
    [
      'problem dispositions',
      client.PROBLEM_DISPOSITIONS,
      library.DISPOSITIONS.filter((disposition) => !(library.SUCCESS_DISPOSITIONS as readonly string[]).includes(disposition)),
    ],
    ['problem codes', client.PROBLEM_CODES, Object.keys(PROBLEM_TYPES)],
  ])('%s equal the service', (_name, copy, definition) => {
    expect(copy).toEqual(definition);
  });

  it('bounds a batch consume as the service does', () => {
    expect(client.MAX_CONSUME_BATCH).toBe(library.MAX_CONSUME_BATCH);
  });

  it('types every problem code the service answers, and no other', () => {
    // Compile-time as well: either direction fails to type-check on drift.
    const toClient = (code: ProblemCode): client.ProblemCode => code;
    const toServer = (code: client.ProblemCode): ProblemCode => code;
    for (const code of client.PROBLEM_CODES) expect(toServer(toClient(code))).toBe(code);
  });

  it('types the admin loop filters and refusal codes the service knows, and no other', () => {
    // The admin API's closed sets are type-only in the client: both directions must type-check.
    const filterToClient = (filter: library.LoopFilter): client.LoopFilter => filter;
    const filterToServer = (filter: client.LoopFilter): library.LoopFilter => filter;
    for (const filter of library.LOOP_FILTERS) expect(filterToServer(filterToClient(filter))).toBe(filter);
    const codeToClient = (code: RefusalCode): client.RefusalCode => code;
    const codeToServer = (code: client.RefusalCode): RefusalCode => code;
    for (const code of REFUSAL_CODES) expect(codeToServer(codeToClient(code))).toBe(code);
  });
});
