import { IsString } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { ProcessCompletionNotificationDto } from '../commands/notify-process-completion/process-completion-notification.dto.js';
import { ProcessLifecycleRecordDto } from '../commands/publish-process-lifecycle/process-lifecycle-record.dto.js';
import { ValidationError } from '../errors/validation.error.js';
import { idOf, requireCanonicalUuid } from './canonical-uuid.decorator.js';
import { parseLifecycleTimestamp } from './lifecycle-timestamp.decorator.js';
import { validateInput, type InputSchema } from './validate-input.js';

type Fields = Record<string, unknown>;
type Dto<T extends object> = (new () => T) & { schema: InputSchema<T> };

/** The field and the message (the problem detail a caller reads) of a rejected input. */
function rejection<T extends object>(dto: Dto<T>, input: unknown): { field: string; message: string } {
  try {
    validateInput(dto, dto.schema, input);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return { field: (error as ValidationError).field, message: (error as ValidationError).message };
  }
  throw new Error('the input was accepted');
}

const notification = (overrides: Fields = {}): Fields => ({
  command_id: randomUUID(),
  session_id: randomUUID(),
  loop_id: randomUUID(),
  process_handle: 'proc-1',
  state: 'killed',
  reason: 'output_limit',
  ...overrides,
});

/** A valid `completed` record with state `failed` (the one kind that may carry a diagnostic). */
const failed = (overrides: Fields = {}): Fields => ({
  event_id: randomUUID(),
  kind: 'completed',
  session_id: randomUUID(),
  loop_id: randomUUID(),
  process_handle: 'proc-1',
  origin_execution_id: randomUUID(),
  state: 'failed',
  process_created_at: '2026-11-01T10:00:00Z',
  process_finished_at: '2026-11-01T10:01:00Z',
  reason: 'failed',
  ...overrides,
});

/** A valid `started` record. */
const started = (overrides: Fields = {}): Fields => ({
  event_id: randomUUID(),
  kind: 'started',
  session_id: randomUUID(),
  loop_id: randomUUID(),
  process_handle: 'proc-1',
  origin_execution_id: randomUUID(),
  state: 'running',
  process_created_at: '2026-11-01T10:00:00Z',
  process_started_at: '2026-11-01T10:00:01Z',
  ...overrides,
});

// The messages are the `detail` of the 400 problem a client reads (spec: invalid_field names the
// field and says what is wrong with it).
describe('validation messages', () => {
  const notify = (input: unknown) => rejection(ProcessCompletionNotificationDto, input);
  const lifecycle = (input: unknown) => rejection(ProcessLifecycleRecordDto, input);

  it('says what a UUID, a process handle and a terminal pair must be', () => {
    expect(notify(notification({ command_id: 'not-a-uuid' }))).toEqual({
      field: 'command_id',
      message: 'command_id must be a canonical, non-nil UUID',
    });
    expect(notify(notification({ process_handle: 'a b' }))).toEqual({
      field: 'process_handle',
      message: 'process_handle must be 1 to 128 characters of A-Z a-z 0-9 - _',
    });
    expect(notify(notification({ state: 'running', reason: 'exited' }))).toEqual({
      field: 'state_reason',
      message: 'state and reason must form one of the terminal pairs',
    });
  });

  it('rejects a process handle that is not a string, even one whose text would match', () => {
    expect(notify(notification({ process_handle: 123 })).field).toBe('process_handle');
    expect(notify(notification({ process_handle: ['proc-1'] })).field).toBe('process_handle');
  });

  it('names a body that is not an object, and an unknown key', () => {
    expect(notify('x')).toEqual({ field: 'command_id', message: 'expected a JSON object' });
    expect(notify(notification({ env: 'PATH=/' }))).toEqual({ field: 'env', message: 'unknown property "env"' });
  });

  it('says what an id passed by embedding code must be', () => {
    expect(() => requireCanonicalUuid('x', 'loop_id')).toThrow(new ValidationError('loop_id', 'loop_id must be a canonical, non-nil UUID'));
    expect(() => idOf(1, 'session_id')).toThrow(new ValidationError('session_id', 'session_id must be a string'));
  });

  it('says what a diagnostic and an exit code must be', () => {
    expect(lifecycle(failed({ diagnostic: 'x'.repeat(513) }))).toEqual({
      field: 'diagnostic',
      message: 'diagnostic must be valid UTF-8 of at most 512 bytes',
    });
    expect(lifecycle(started({ diagnostic: 'why' }))).toEqual({
      field: 'diagnostic',
      message: 'diagnostic is only allowed on completed records with state failed and on lost records',
    });
    expect(lifecycle(failed({ exit_code: 3 }))).toEqual({
      field: 'exit_code',
      message: 'exit_code must be a 32-bit integer, and 0 unless has_exit_code is true',
    });
  });

  it('says whether a timestamp is malformed or before the one it must follow', () => {
    expect(lifecycle(started({ process_created_at: 'yesterday' }))).toEqual({
      field: 'process_created_at',
      message: 'process_created_at must be an RFC 3339 date-time (e.g. 2026-11-01T10:00:00Z)',
    });
    expect(lifecycle(started({ process_started_at: '2026-11-01T09:59:59Z' }))).toEqual({
      field: 'process_started_at',
      message: 'process_started_at must not be before process_created_at',
    });
  });
});

describe('lifecycle timestamps compared by their fraction digits', () => {
  const lifecycle = (input: unknown) => rejection(ProcessLifecycleRecordDto, input);
  const accepted = (input: Fields) => validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, input);

  it('orders instants within one second by their fractions', () => {
    expect(
      lifecycle(started({ process_created_at: '2026-11-01T10:00:00.5Z', process_started_at: '2026-11-01T10:00:00.25Z' })),
    ).toMatchObject({ field: 'process_started_at', message: 'process_started_at must not be before process_created_at' });
    expect(() =>
      accepted(started({ process_created_at: '2026-11-01T10:00:00.25Z', process_started_at: '2026-11-01T10:00:00.5Z' })),
    ).not.toThrow();
    expect(() =>
      accepted(started({ process_created_at: '2026-11-01T10:00:00.5Z', process_started_at: '2026-11-01T10:00:00.500Z' })),
    ).not.toThrow();
  });

  it('drops only trailing zeros of a fraction: .0500 is .05, before .5', () => {
    expect(parseLifecycleTimestamp('2026-11-01T10:00:00.0500Z')?.fraction).toBe('05');
    expect(
      lifecycle(started({ process_created_at: '2026-11-01T10:00:00.5Z', process_started_at: '2026-11-01T10:00:00.0500Z' })).field,
    ).toBe('process_started_at');
  });
});

class Reversed {
  @IsString()
  readonly second: string;

  @IsString()
  readonly first: string;

  static readonly schema: InputSchema<Reversed> = { properties: ['first', 'second'] };
}

class Empty {
  static readonly schema: InputSchema<Empty> = { properties: [] };
}

// validateInput is exported for embedders' own DTOs (index.ts).
describe('validateInput with any closed-schema DTO', () => {
  it("reports the first failing field in the schema's order, not the order the class declares them", () => {
    expect(rejection(Reversed, { first: 1, second: 2 }).field).toBe('first');
    expect(rejection(Reversed, { second: 2, first: 'ok' }).field).toBe('second');
  });

  it('takes an empty body for a DTO with no fields, and names a non-object one "body"', () => {
    expect(validateInput(Empty, Empty.schema, {})).toBeInstanceOf(Empty);
    expect(rejection(Empty, 'x')).toEqual({ field: 'body', message: 'expected a JSON object' });
  });

  it('rejects null as a missing first field, and takes an object without a prototype', () => {
    expect(rejection(Reversed, null)).toEqual({ field: 'first', message: 'expected a JSON object' });
    const bare = Object.assign(Object.create(null) as Fields, { first: 'a', second: 'b' });
    expect(validateInput(Reversed, Reversed.schema, bare)).toMatchObject({ first: 'a', second: 'b' });
  });
});
