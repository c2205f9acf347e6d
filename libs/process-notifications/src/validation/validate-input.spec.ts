import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { dtoInputs, HOT_DTOS } from '../../../../test/support/dto-inputs.js';
import { ProcessCompletionNotificationDto } from '../commands/notify-process-completion/process-completion-notification.dto.js';
import { ValidationError } from '../errors/validation.error.js';
import { isCanonicalUuid } from './canonical-uuid.decorator.js';
import { validateInput, validateInputByLibrary } from './validate-input.js';

const validate = (input: unknown) => validateInput(ProcessCompletionNotificationDto, ProcessCompletionNotificationDto.schema, input);

function fieldOf(input: unknown): string | undefined {
  try {
    validate(input);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).field;
  }
}

const input = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  command_id: randomUUID(),
  session_id: randomUUID(),
  loop_id: randomUUID(),
  process_handle: 'proc-1',
  state: 'killed',
  reason: 'output_limit',
  ...overrides,
});

describe('validateInput with the completion notification schema', () => {
  it('returns a DTO instance with exactly the six fields, UUIDs in lower case', () => {
    const raw = input({ command_id: randomUUID().toUpperCase(), loop_id: randomUUID().toUpperCase() });
    const dto = validate(raw);
    expect(dto).toBeInstanceOf(ProcessCompletionNotificationDto);
    expect({ ...dto }).toEqual({
      ...raw,
      command_id: String(raw.command_id).toLowerCase(),
      loop_id: String(raw.loop_id).toLowerCase(),
    });
  });

  it('leaves the caller input untouched', () => {
    const raw = input({ command_id: randomUUID().toUpperCase() });
    const copy = { ...raw };
    validate(raw);
    expect(raw).toEqual(copy);
  });

  it('checks unknown keys before any field, and reports them by name', () => {
    expect(fieldOf({ env: 'x' })).toBe('env');
    expect(fieldOf(JSON.parse('{"__proto__": {}}'))).toBe('__proto__');
    expect(fieldOf(input({ constructor: 'x' }))).toBe('constructor');
  });

  it('does not let an own __proto__ key change the prototype of the DTO', () => {
    const raw = JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(input()).slice(1)}`) as object;
    expect(() => validate(raw)).toThrow(ValidationError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports state and reason problems as state_reason, after the other fields', () => {
    expect(fieldOf(input({ state: 'running', reason: 'exited' }))).toBe('state_reason');
    expect(fieldOf(input({ state: 1, process_handle: '' }))).toBe('process_handle');
  });

  it('rejects non-plain objects as a missing first field', () => {
    class Lookalike {
      command_id = randomUUID();
    }
    expect(fieldOf(new Lookalike())).toBe('command_id');
    expect(fieldOf(Object.assign(Object.create({ inherited: true }) as object, input()))).toBe('command_id');
  });
});

// What a call answers: the instance (prototype and own entries), or the error (class and fields).
function outcomeOf(validate: () => object): unknown {
  try {
    const instance = validate();
    return { prototype: Object.getPrototypeOf(instance) as unknown, entries: Object.entries(instance) };
  } catch (error) {
    return {
      error: error instanceof ValidationError ? { ...error, class: ValidationError, name: error.name, message: error.message } : error,
    };
  }
}

describe('validateInput against the libraries’ own path (plainToInstance, validateSync)', () => {
  it.each(HOT_DTOS.map((hot) => [hot.name, hot] as const))(
    'gives %s the same verdict, the same error and the same object for generated inputs',
    (_name, hot) => {
      const { dto } = hot;
      const seen = { accepted: 0, refused: 0 };
      fc.assert(
        fc.property(dtoInputs(hot, { extraKeys: true }), (input) => {
          const fast = outcomeOf(() => validateInput(dto, dto.schema, input));
          expect(fast).toStrictEqual(outcomeOf(() => validateInputByLibrary(dto, dto.schema, input)));
          seen['error' in (fast as object) ? 'refused' : 'accepted'] += 1;
        }),
        { numRuns: 3_000 },
      );
      expect(seen.accepted).toBeGreaterThan(100);
      expect(seen.refused).toBeGreaterThan(300);
    },
  );
});

describe('isCanonicalUuid', () => {
  it.each([randomUUID(), randomUUID().toUpperCase(), 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000001'])(
    'accepts %s (any version, any case)',
    (value) => expect(isCanonicalUuid(value)).toBe(true),
  );

  it.each(['00000000-0000-0000-0000-000000000000', '', 'x'.repeat(36), randomUUID().replaceAll('-', ''), `${randomUUID()} `])(
    'rejects %j',
    (value) => expect(isCanonicalUuid(value)).toBe(false),
  );

  it.each([null, undefined, 1, true, [], {}])('rejects the non-string %j', (value) => expect(isCanonicalUuid(value)).toBe(false));
});
