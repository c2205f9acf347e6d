import { randomUUID } from 'node:crypto';
import { ValidationError } from '../../errors/validation.error.js';
import { validateInput } from '../../validation/validate-input.js';
import { LIFECYCLE_KINDS, PROCESS_STATES, TERMINAL_REASONS } from 'process-notifications-contract';
import { ProcessLifecycleRecordDto } from './process-lifecycle-record.dto.js';

const CREATED = '2026-11-01T10:00:00Z';
const STARTED = '2026-11-01T10:00:05.250Z';
const FINISHED = '2026-11-01T10:01:00Z';

type Fields = Record<string, unknown>;

function record(fields: Fields): Fields {
  return {
    event_id: randomUUID(),
    session_id: randomUUID(),
    loop_id: randomUUID(),
    process_handle: 'proc-1',
    origin_execution_id: randomUUID(),
    process_created_at: CREATED,
    ...fields,
  };
}

/** A record of that kind/state/reason whose optional fields fit the kind, so only the tuple decides. */
function shaped(kind: string, state: string, reason?: string): Fields {
  const fields: Fields = { kind, state, ...(reason === undefined ? {} : { reason }) };
  switch (kind) {
    case 'started':
    case 'backgrounded':
      return record({ ...fields, process_started_at: STARTED });
    case 'stop_requested':
      return record({ ...fields, ...(state === 'running' ? { process_started_at: STARTED } : {}) });
    case 'completed':
      if (state === 'exited')
        return record({ ...fields, process_started_at: STARTED, process_finished_at: FINISHED, has_exit_code: true, exit_code: 0 });
      if (state === 'failed') return record({ ...fields, process_finished_at: FINISHED });
      return record({ ...fields, process_started_at: STARTED, process_finished_at: FINISHED });
    default:
      return record({ ...fields, process_finished_at: FINISHED });
  }
}

/** The field `validateInput` names, or null when the record is valid. */
function failingField(input: unknown): string | null {
  try {
    validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, input);
    return null;
  } catch (error) {
    if (error instanceof ValidationError) return error.field;
    throw error;
  }
}

// Section 6's tuples, written out from its text: "`started` and `backgrounded`: state `running`, no
// reason. `stop_requested`: state `starting` or `running`, reason `interrupted`, `terminated` or
// `killed`. `completed`: any pair of section 2 except `lost_on_restore`. `lost`: state and reason
// `lost_on_restore`."
const TUPLES = new Set([
  'started/running/-',
  'backgrounded/running/-',
  'stop_requested/starting/interrupted',
  'stop_requested/starting/terminated',
  'stop_requested/starting/killed',
  'stop_requested/running/interrupted',
  'stop_requested/running/terminated',
  'stop_requested/running/killed',
  'completed/exited/exited',
  'completed/failed/failed',
  'completed/timed_out/timed_out',
  'completed/interrupted/interrupted',
  'completed/terminated/terminated',
  'completed/terminated/runner_shutdown',
  'completed/terminated/output_limit',
  'completed/killed/killed',
  'completed/killed/runner_shutdown',
  'completed/killed/output_limit',
  'lost/lost_on_restore/lost_on_restore',
]);

describe('ProcessLifecycleRecordDto', () => {
  describe('kind × state × reason', () => {
    // Every kind, state and reason (or none) of the contract's vocabulary.
    const matrix = LIFECYCLE_KINDS.flatMap((kind) =>
      PROCESS_STATES.flatMap((state) =>
        [undefined, ...TERMINAL_REASONS].map((reason) => [`${kind}/${state}/${reason ?? '-'}`, kind, state, reason] as const),
      ),
    );

    it('allows exactly the tuples of the contract, no more', () => {
      const allowed = matrix.filter(([, kind, state, reason]) => failingField(shaped(kind, state, reason)) === null).map(([name]) => name);
      expect(new Set(allowed)).toEqual(TUPLES);
    });

    it.each(matrix)('%s', (name, kind, state, reason) => {
      expect(failingField(shaped(kind, state, reason))).toBe(TUPLES.has(name) ? null : 'state_reason');
    });

    it('names an unknown kind, state or reason by its own rule, not the tuple', () => {
      expect(failingField(shaped('exploded', 'running'))).toBe('kind');
      expect(failingField(shaped('started', 'zombie'))).toBe('state');
      expect(failingField(shaped('completed', 'exited', 'vanished'))).toBe('state_reason');
      expect(failingField({ ...shaped('completed', 'exited', 'exited'), reason: null })).toBe('state_reason');
      expect(failingField({ ...shaped('completed', 'exited', 'exited'), reason: 7 })).toBe('state_reason');
      expect(failingField({ ...shaped('started', 'running'), kind: 'STARTED' })).toBe('kind');
      expect(failingField({ ...shaped('started', 'running'), state: ['running'] })).toBe('state');
    });
  });

  describe('shape (lifecycle_fields)', () => {
    const valid = (fields: Fields) => expect(failingField(record(fields))).toBeNull();
    const invalid = (fields: Fields) => expect(failingField(record(fields))).toBe('lifecycle_fields');

    it.each(['started', 'backgrounded'])('%s: started set, finished unset, no exit code', (kind) => {
      const base = { kind, state: 'running', process_started_at: STARTED };
      valid(base);
      valid({ ...base, has_exit_code: false });
      valid({ ...base, has_exit_code: false, exit_code: 0 });
      invalid({ kind, state: 'running' });
      invalid({ ...base, process_finished_at: FINISHED });
      invalid({ ...base, has_exit_code: true });
      invalid({ ...base, has_exit_code: true, exit_code: 0 });
    });

    it('stop_requested: started set exactly when running, finished unset, no exit code, no diagnostic', () => {
      valid({ kind: 'stop_requested', state: 'running', reason: 'killed', process_started_at: STARTED });
      valid({ kind: 'stop_requested', state: 'starting', reason: 'killed' });
      invalid({ kind: 'stop_requested', state: 'running', reason: 'killed' });
      invalid({ kind: 'stop_requested', state: 'starting', reason: 'killed', process_started_at: STARTED });
      invalid({ kind: 'stop_requested', state: 'running', reason: 'killed', process_started_at: STARTED, process_finished_at: FINISHED });
      invalid({ kind: 'stop_requested', state: 'starting', reason: 'killed', process_finished_at: FINISHED });
      invalid({ kind: 'stop_requested', state: 'running', reason: 'killed', process_started_at: STARTED, has_exit_code: true });
      expect(
        failingField(record({ kind: 'stop_requested', state: 'running', reason: 'killed', process_started_at: STARTED, diagnostic: 'x' })),
      ).toBe('diagnostic');
    });

    it('completed exited: finished, started and has_exit_code all set', () => {
      const base = {
        kind: 'completed',
        state: 'exited',
        reason: 'exited',
        process_started_at: STARTED,
        process_finished_at: FINISHED,
        has_exit_code: true,
      };
      valid(base);
      valid({ ...base, exit_code: 0 });
      valid({ ...base, exit_code: 137 });
      valid({ ...base, exit_code: -1 });
      invalid({ ...base, process_finished_at: undefined });
      invalid({ ...base, process_started_at: undefined });
      invalid({ ...base, has_exit_code: undefined });
      invalid({ ...base, has_exit_code: false });
      invalid({ ...base, has_exit_code: false, exit_code: 0 });
    });

    it('completed failed: finished set, no exit code; started optional', () => {
      const base = { kind: 'completed', state: 'failed', reason: 'failed', process_finished_at: FINISHED };
      valid(base);
      valid({ ...base, process_started_at: STARTED });
      valid({ ...base, has_exit_code: false, exit_code: 0 });
      invalid({ ...base, process_finished_at: undefined });
      invalid({ ...base, has_exit_code: true });
      invalid({ ...base, has_exit_code: true, exit_code: 1 });
    });

    it.each([
      ['timed_out', 'timed_out'],
      ['interrupted', 'interrupted'],
      ['terminated', 'terminated'],
      ['terminated', 'runner_shutdown'],
      ['terminated', 'output_limit'],
      ['killed', 'killed'],
      ['killed', 'runner_shutdown'],
      ['killed', 'output_limit'],
    ])('completed %s/%s: finished and started set, no exit code', (state, reason) => {
      const base = { kind: 'completed', state, reason, process_started_at: STARTED, process_finished_at: FINISHED };
      valid(base);
      valid({ ...base, has_exit_code: false });
      invalid({ ...base, process_started_at: undefined });
      invalid({ ...base, process_finished_at: undefined });
      invalid({ ...base, has_exit_code: true, exit_code: 0 });
    });

    it('lost: finished set, no exit code; started optional', () => {
      const base = { kind: 'lost', state: 'lost_on_restore', reason: 'lost_on_restore', process_finished_at: FINISHED };
      valid(base);
      valid({ ...base, process_started_at: STARTED });
      invalid({ ...base, process_finished_at: undefined });
      invalid({ ...base, has_exit_code: true });
    });

    it('checks the tuple before the shape', () => {
      expect(failingField(record({ kind: 'started', state: 'running', reason: 'killed' }))).toBe('state_reason');
    });
  });

  describe('shape messages: lifecycle_fields says what is wrong', () => {
    const messageOf = (fields: Fields): string => {
      try {
        validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, record(fields));
      } catch (error) {
        if (error instanceof ValidationError && error.field === 'lifecycle_fields') return error.message;
        throw error;
      }
      throw new Error('the record was valid');
    };
    const exited = { kind: 'completed', state: 'exited', reason: 'exited', process_started_at: STARTED, process_finished_at: FINISHED };

    it.each([
      ['completed with state exited requires has_exit_code: true', exited],
      ['completed with state exited requires process_started_at', { ...exited, process_started_at: undefined, has_exit_code: true }],
      ['completed with state failed requires process_finished_at', { kind: 'completed', state: 'failed', reason: 'failed' }],
      [
        'completed with state failed must not carry has_exit_code: true',
        { kind: 'completed', state: 'failed', reason: 'failed', process_finished_at: FINISHED, has_exit_code: true },
      ],
      ['started requires process_started_at', { kind: 'started', state: 'running' }],
      [
        'backgrounded must not carry process_finished_at',
        { kind: 'backgrounded', state: 'running', process_started_at: STARTED, process_finished_at: FINISHED },
      ],
      ['stop_requested with state running requires process_started_at', { kind: 'stop_requested', state: 'running', reason: 'killed' }],
      [
        'stop_requested with state starting must not carry process_started_at',
        { kind: 'stop_requested', state: 'starting', reason: 'killed', process_started_at: STARTED },
      ],
      ['lost requires process_finished_at', { kind: 'lost', state: 'lost_on_restore', reason: 'lost_on_restore' }],
    ])('"%s"', (message, fields) => {
      expect(messageOf(fields)).toBe(message);
    });
  });

  describe('diagnostic', () => {
    const lost = (diagnostic: unknown) =>
      record({ kind: 'lost', state: 'lost_on_restore', reason: 'lost_on_restore', process_finished_at: FINISHED, diagnostic });

    it.each([
      ['512 ASCII bytes', 'd'.repeat(512), null],
      ['513 ASCII bytes', 'd'.repeat(513), 'diagnostic'],
      ['256 two-byte characters (512 bytes)', 'é'.repeat(256), null],
      ['one byte plus 256 two-byte characters (513 bytes)', 'a' + 'é'.repeat(256), 'diagnostic'],
      ['170 three-byte characters plus 2 bytes (512 bytes)', '€'.repeat(170) + 'ab', null],
      ['170 three-byte characters plus 3 bytes (513 bytes)', '€'.repeat(170) + 'abc', 'diagnostic'],
      ['508 bytes plus a four-byte emoji (512 bytes)', 'a'.repeat(508) + '😀', null],
      ['509 bytes plus a four-byte emoji (513 bytes)', 'a'.repeat(509) + '😀', 'diagnostic'],
      ['an empty string', '', null],
      ['a surrogate pair', 'exit \uD83D\uDE00', null],
      ['a lone high surrogate', 'bad \uD800 text', 'diagnostic'],
      ['a lone low surrogate', '\uDE00', 'diagnostic'],
      ['a reversed pair', '\uDE00\uD83D', 'diagnostic'],
      ['a number', 42, 'diagnostic'],
      ['null', null, 'diagnostic'],
    ])('%s', (_name, diagnostic, field) => {
      expect(failingField(lost(diagnostic))).toBe(field);
    });

    it('is allowed only on completed/failed and lost', () => {
      const failed = { kind: 'completed', state: 'failed', reason: 'failed', process_finished_at: FINISHED, diagnostic: 'spawn failed' };
      expect(failingField(record(failed))).toBeNull();
      expect(failingField(lost('gone'))).toBeNull();
      for (const kind of LIFECYCLE_KINDS.filter((kind) => kind !== 'lost')) {
        for (const state of PROCESS_STATES.filter((state) => kind !== 'completed' || state !== 'failed')) {
          // The diagnostic rule comes before the tuple, so the tuple need not be valid here.
          expect([kind, state, failingField({ ...shaped(kind, state), diagnostic: 'x' })]).toEqual([kind, state, 'diagnostic']);
        }
      }
    });
  });

  describe('exit code', () => {
    const exited = (fields: Fields) =>
      record({
        kind: 'completed',
        state: 'exited',
        reason: 'exited',
        process_started_at: STARTED,
        process_finished_at: FINISHED,
        ...fields,
      });

    it.each([
      ['0 with the flag', { has_exit_code: true, exit_code: 0 }, null],
      ['2 with the flag', { has_exit_code: true, exit_code: 2 }, null],
      ['2 without the flag', { exit_code: 2 }, 'exit_code'],
      ['2 with the flag false', { has_exit_code: false, exit_code: 2 }, 'exit_code'],
      ['2^31 - 1', { has_exit_code: true, exit_code: 2_147_483_647 }, null],
      ['-2^31', { has_exit_code: true, exit_code: -2_147_483_648 }, null],
      ['2^31', { has_exit_code: true, exit_code: 2_147_483_648 }, 'exit_code'],
      ['-2^31 - 1', { has_exit_code: true, exit_code: -2_147_483_649 }, 'exit_code'],
      ['a fraction', { has_exit_code: true, exit_code: 1.5 }, 'exit_code'],
      ['a string', { has_exit_code: true, exit_code: '0' }, 'exit_code'],
      ['null', { has_exit_code: true, exit_code: null }, 'exit_code'],
      ['a string flag', { has_exit_code: 'true', exit_code: 0 }, 'has_exit_code'],
      ['a null flag', { has_exit_code: null }, 'has_exit_code'],
    ])('%s', (_name, fields, field) => {
      expect(failingField(exited(fields))).toBe(field);
    });

    it('a zero exit code without the flag passes the field rule and fails only the exited shape', () => {
      expect(failingField(exited({ exit_code: 0 }))).toBe('lifecycle_fields');
    });
  });

  describe('timestamp order', () => {
    const completed = (fields: Fields) =>
      record({ kind: 'completed', state: 'exited', reason: 'exited', has_exit_code: true, exit_code: 0, ...fields });

    it.each([
      ['all equal', CREATED, CREATED, CREATED, null],
      ['equal instants, different offsets', '2026-11-01T10:00:00Z', '2026-11-01T12:00:00+02:00', '2026-11-01t05:00:00-05:00', null],
      [
        'equal instants, different fraction widths',
        '2026-11-01T10:00:00.5Z',
        '2026-11-01T10:00:00.500Z',
        '2026-11-01T10:00:00.5000000Z',
        null,
      ],
      ['started a millisecond early', CREATED, '2026-11-01T09:59:59.999Z', FINISHED, 'process_started_at'],
      ['started early once offsets are applied', CREATED, '2026-11-01T11:59:59+02:00', FINISHED, 'process_started_at'],
      ['started 100 ns early', '2026-11-01T10:00:00.0000001Z', '2026-11-01T10:00:00Z', FINISHED, 'process_started_at'],
      ['finished before started', CREATED, STARTED, '2026-11-01T10:00:05.249Z', 'process_finished_at'],
      ['finished before created', CREATED, CREATED, '2026-11-01T09:00:00Z', 'process_finished_at'],
      ['finished early once offsets are applied', CREATED, CREATED, '2026-11-01T10:30:00+01:00', 'process_finished_at'],
    ])('%s', (_name, created, started, finished, field) => {
      expect(failingField(completed({ process_created_at: created, process_started_at: started, process_finished_at: finished }))).toBe(
        field,
      );
    });

    it('compares finished with created when there is no started', () => {
      const lost = { kind: 'lost', state: 'lost_on_restore', reason: 'lost_on_restore' };
      expect(failingField(record({ ...lost, process_finished_at: '2026-11-01T09:59:59Z' }))).toBe('process_finished_at');
      expect(failingField(record({ ...lost, process_finished_at: '2026-11-01T11:00:00+01:00' }))).toBeNull();
    });

    it('names an unparseable timestamp as its own field, in table order', () => {
      expect(
        failingField(completed({ process_created_at: '2026-11-01 10:00:00Z', process_started_at: STARTED, process_finished_at: FINISHED })),
      ).toBe('process_created_at');
      expect(failingField(completed({ process_started_at: '2026-02-30T10:00:00Z', process_finished_at: FINISHED }))).toBe(
        'process_started_at',
      );
      expect(failingField(completed({ process_started_at: STARTED, process_finished_at: '2026-11-01T10:01:00' }))).toBe(
        'process_finished_at',
      );
      expect(failingField(completed({ process_started_at: null, process_finished_at: FINISHED }))).toBe('process_started_at');
      expect(failingField(completed({ process_created_at: undefined, process_started_at: STARTED, process_finished_at: FINISHED }))).toBe(
        'process_created_at',
      );
    });
  });

  describe('command_id (section 14)', () => {
    const exited = (fields: Fields = {}) => ({ ...shaped('completed', 'exited', 'exited'), ...fields });
    const lost = (fields: Fields = {}) => ({ ...shaped('lost', 'lost_on_restore', 'lost_on_restore'), ...fields });

    it('is optional, and allowed on completed and lost', () => {
      expect(failingField(exited())).toBeNull();
      expect(failingField(exited({ command_id: randomUUID() }))).toBeNull();
      expect(failingField({ ...shaped('completed', 'failed', 'failed'), command_id: randomUUID() })).toBeNull();
      expect(failingField({ ...shaped('completed', 'killed', 'output_limit'), command_id: randomUUID() })).toBeNull();
      expect(failingField(lost({ command_id: randomUUID() }))).toBeNull();
    });

    it.each([
      ['started', 'running', undefined],
      ['backgrounded', 'running', undefined],
      ['stop_requested', 'running', 'terminated'],
      ['stop_requested', 'starting', 'interrupted'],
    ])('is refused on %s (state %s) as field command_id', (kind, state, reason) => {
      expect(failingField({ ...shaped(kind, state, reason), command_id: randomUUID() })).toBe('command_id');
    });

    it.each([
      ['not a UUID', 'not-a-uuid'],
      ['the nil UUID', '00000000-0000-0000-0000-000000000000'],
      ['without dashes', randomUUID().replaceAll('-', '')],
      ['braced', `{${randomUUID()}}`],
      ['a number', 42],
      ['null', null],
      ['an empty string', ''],
    ])('is refused when %s', (_name, commandId) => {
      expect(failingField(exited({ command_id: commandId }))).toBe('command_id');
    });

    it('must differ from event_id, in any case', () => {
      const id = randomUUID();
      expect(failingField(exited({ event_id: id, command_id: id }))).toBe('command_id');
      expect(failingField(lost({ event_id: id, command_id: id.toUpperCase() }))).toBe('command_id');
      expect(failingField(lost({ event_id: id.toUpperCase(), command_id: id }))).toBe('command_id');
    });

    it('is lower-cased like every UUID and journaled right after reason', () => {
      const commandId = randomUUID();
      const dto = validateInput(
        ProcessLifecycleRecordDto,
        ProcessLifecycleRecordDto.schema,
        exited({ command_id: commandId.toUpperCase() }),
      );
      expect(dto.command_id).toBe(commandId);
      const properties = ProcessLifecycleRecordDto.schema.properties;
      expect(properties.indexOf('command_id')).toBe(properties.indexOf('reason') + 1);
    });

    it('is checked after reason and before the tuple and the shape', () => {
      // A bad reason is reported before command_id.
      expect(failingField(exited({ reason: 'vanished', command_id: 'bad' }))).toBe('state_reason');
      // A bad command_id is reported before a bad tuple...
      expect(failingField({ ...shaped('completed', 'exited', 'failed'), command_id: 'bad' })).toBe('command_id');
      expect(failingField({ ...shaped('started', 'running', 'killed'), command_id: randomUUID() })).toBe('command_id');
      // ...and before a bad shape.
      expect(failingField(exited({ has_exit_code: undefined, command_id: 'bad' }))).toBe('command_id');
      // Fields before it still come first.
      expect(failingField(exited({ exit_code: 1.5, command_id: 'bad' }))).toBe('exit_code');
      expect(failingField({ ...shaped('started', 'running'), diagnostic: 'x', command_id: randomUUID() })).toBe('diagnostic');
    });

    it('says why it was refused', () => {
      const messageOf = (input: Fields): string => {
        try {
          validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, input);
        } catch (error) {
          if (error instanceof ValidationError) return error.message;
          throw error;
        }
        throw new Error('the record was valid');
      };
      const id = randomUUID();
      expect(messageOf({ ...shaped('started', 'running'), command_id: randomUUID() })).toBe(
        'command_id is only allowed on completed and lost records',
      );
      expect(messageOf(exited({ event_id: id, command_id: id }))).toBe('command_id must differ from event_id');
      expect(messageOf(exited({ command_id: 'nope' }))).toBe('command_id must be a canonical, non-nil UUID');
    });
  });

  describe('signal (section 6, issue 47)', () => {
    const killed = (fields: Fields = {}): Fields => ({ ...shaped('completed', 'killed', 'killed'), ...fields });
    const messageOf = (input: Fields): string => {
      try {
        validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, input);
      } catch (error) {
        if (error instanceof ValidationError) return error.message;
        throw error;
      }
      throw new Error('the record was valid');
    };

    it('is journaled last, right after command_id, exactly as sent', () => {
      const properties = ProcessLifecycleRecordDto.schema.properties;
      expect(properties.indexOf('signal')).toBe(properties.indexOf('command_id') + 1);
      expect(properties.at(-1)).toBe('signal');
      const dto = validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, killed({ signal: 'SIGSEGV' }));
      expect(dto.signal).toBe('SIGSEGV');
    });

    it('is allowed on completed in exactly the states a signal ends', () => {
      const allowed = PROCESS_STATES.filter((state) =>
        TERMINAL_REASONS.some(
          (reason) =>
            TUPLES.has(`completed/${state}/${reason}`) &&
            failingField({ ...shaped('completed', state, reason), signal: 'SIGTERM' }) === null,
        ),
      );
      expect(allowed).toEqual(['timed_out', 'interrupted', 'terminated', 'killed']);
    });

    it('says why it was refused', () => {
      expect(messageOf(killed({ signal: 'segv' }))).toBe('signal must be SIG and 2 to 10 upper-case letters or digits');
      expect(messageOf({ ...shaped('completed', 'exited', 'exited'), signal: 'SIGSEGV' })).toBe(
        'signal is only allowed on completed records with state interrupted, terminated, killed, timed_out',
      );
    });
  });

  describe('closed schema and check order', () => {
    const valid = () => shaped('started', 'running');

    it('rejects an unknown property under its own name before anything else', () => {
      expect(failingField({ ...valid(), command: 'rm -rf /' })).toBe('command');
      expect(failingField({ event_id: 'nope', kind: 'nope', env: {} })).toBe('env');
      expect(failingField({ ...valid(), pid: 4242 })).toBe('pid');
    });

    it('names the first failing field in table order', () => {
      const fields = [
        ['event_id', 'not-a-uuid'],
        ['kind', 'exploded'],
        ['session_id', '00000000-0000-0000-0000-000000000000'],
        ['loop_id', 42],
        ['process_handle', 'has space'],
        ['origin_execution_id', null],
        ['state', 'zombie'],
        ['process_created_at', 'yesterday'],
        ['process_started_at', 'tomorrow'],
      ] as const;
      // Break every field, then repair them one by one from the front.
      const input: Fields = { ...valid() };
      for (const [name, bad] of fields) input[name] = bad;
      for (const [name] of fields) {
        expect(failingField(input)).toBe(name);
        input[name] = valid()[name];
      }
      expect(failingField(input)).toBeNull();
    });

    it('reports field rules before the tuple and the tuple before the shape', () => {
      expect(failingField({ ...shaped('started', 'running', 'killed'), exit_code: 3 })).toBe('exit_code');
      expect(failingField({ ...shaped('started', 'running', 'killed'), diagnostic: 'x' })).toBe('diagnostic');
      expect(failingField({ ...shaped('started', 'running', 'killed'), process_finished_at: FINISHED })).toBe('state_reason');
    });

    it('names missing fields and non-objects', () => {
      const { kind: _kind, ...withoutKind } = valid();
      expect(failingField(withoutKind)).toBe('kind');
      expect(failingField({})).toBe('event_id');
      expect(failingField(null)).toBe('event_id');
      expect(failingField([valid()])).toBe('event_id');
      expect(failingField('started')).toBe('event_id');
    });

    it('lower-cases UUIDs and keeps timestamps exactly as sent', () => {
      const input = {
        ...shaped('started', 'running'),
        event_id: 'A0B1C2D3-E4F5-4A6B-8C7D-9E0F1A2B3C4D',
        process_created_at: '2026-11-01t10:00:00.000z',
      };
      const dto = validateInput(ProcessLifecycleRecordDto, ProcessLifecycleRecordDto.schema, input);
      expect(dto.event_id).toBe('a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d');
      expect(dto.process_created_at).toBe('2026-11-01t10:00:00.000z');
    });
  });
});
