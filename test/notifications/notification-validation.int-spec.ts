import { ValidationError, type ProcessNotificationsService } from 'nestjs-process-notifications';
import type { TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { PROCESS_STATES, TERMINAL_PAIRS, TERMINAL_REASONS } from 'process-notifications-contract';
import { createTestApp, notification } from '../support/test-app.js';
import { NOTIFICATION_VECTORS, VECTOR_LOOP, VECTOR_SESSION } from '../support/notification-vectors.js';
import { dataSourceOf, journalCounts, recordEvents } from './support/journal-probe.js';

const vectors = NOTIFICATION_VECTORS;
const SESSION = VECTOR_SESSION;
const LOOP = VECTOR_LOOP;

const UUID_FIELDS = ['command_id', 'session_id', 'loop_id'] as const;
const FIELDS = [...UUID_FIELDS, 'process_handle', 'state', 'reason'] as const;
const reportedAs = (field: string): string => (field === 'state' || field === 'reason' ? 'state_reason' : field);

const WRONG_TYPES: ReadonlyArray<readonly [string, unknown]> = [
  ['number', 42],
  ['zero', 0],
  ['boolean true', true],
  ['boolean false', false],
  ['null', null],
  ['empty array', []],
  ['object', { value: 'x' }],
  ['empty object', {}],
];

const MALFORMED_UUIDS: ReadonlyArray<readonly [string, string]> = [
  ['empty', ''],
  ['not a uuid', 'not-a-uuid'],
  ['no hyphens', '5ca05a8e1bed40d9abdc87c921bd5e50'],
  ['braced', '{5ca05a8e-1bed-40d9-abdc-87c921bd5e50}'],
  ['urn prefix', 'urn:uuid:5ca05a8e-1bed-40d9-abdc-87c921bd5e50'],
  ['one digit short', '5ca05a8e-1bed-40d9-abdc-87c921bd5e5'],
  ['one digit long', '5ca05a8e-1bed-40d9-abdc-87c921bd5e500'],
  ['non-hex digit', '5ca05a8e-1bed-40d9-abdc-87c921bd5e5g'],
  ['hyphens misplaced', '5ca05a8e1-bed-40d9-abdc-87c921bd5e50'],
  ['leading space', ' 5ca05a8e-1bed-40d9-abdc-87c921bd5e50'],
  ['trailing newline', '5ca05a8e-1bed-40d9-abdc-87c921bd5e50\n'],
  ['underscores', '5ca05a8e_1bed_40d9_abdc_87c921bd5e50'],
  ['full-width digit', '５ca05a8e-1bed-40d9-abdc-87c921bd5e50'],
  ['nil', '00000000-0000-0000-0000-000000000000'],
];

describe('completion notification validation (spec section 2)', () => {
  let moduleRef: TestingModule;
  let service: ProcessNotificationsService;
  let dataSource: DataSource;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ moduleRef, service, close } = await createTestApp({ loopCapacity: 10_000 }));
    dataSource = dataSourceOf(moduleRef);
    await service.openSession(SESSION);
    await service.openLoop(SESSION, { loopId: LOOP });
  });

  afterAll(() => close());

  /** Delivers `input` for SESSION and checks: ValidationError naming `field`, nothing journaled or published. */
  async function expectInvalid(input: unknown, field: string): Promise<void> {
    const before = await journalCounts(dataSource);
    const recorder = recordEvents(moduleRef);
    const error: unknown = await service.notifyProcessCompletion(SESSION, input).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    recorder.stop();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'invalid_field', field });
    expect((error as ValidationError).disposition).toBeUndefined();
    expect(await journalCounts(dataSource)).toEqual(before);
    expect(recorder.events).toEqual([]);
  }

  async function expectAccepted(input: Record<string, unknown>): Promise<void> {
    const before = await journalCounts(dataSource);
    const commandId = String(input.command_id).toLowerCase();
    await expect(service.notifyProcessCompletion(SESSION, input)).resolves.toMatchObject({
      disposition: 'accepted',
      appended: true,
      commandId,
    });
    expect(await journalCounts(dataSource)).toEqual({ rows: before.rows + 1, distinctIds: before.distinctIds + 1 });
    expect((await service.pendingNotifications(SESSION, LOOP)).some((pending) => pending.commandId === commandId)).toBe(true);
  }

  const valid = (overrides: Record<string, unknown> = {}) => notification(SESSION, LOOP, overrides);

  describe('the contract vectors', () => {
    it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', async (_name, vector) => {
      if (vector.field === null) await expectAccepted(vector.input);
      else await expectInvalid(vector.input, vector.field);
    });

    // Runs after the vectors (Jest keeps declaration order), before any other test delivers.
    it('journaled exactly the valid vectors, in order, each once, and they are pending in that order', async () => {
      const valid = vectors.filter((vector) => vector.field === null).map((vector) => String(vector.input.command_id).toLowerCase());
      const journal = await service.readJournal(SESSION, 0, 1000);
      expect(journal.map((record) => [record.kind, record.idempotencyId])).toEqual(valid.map((id) => ['process_notification', id]));
      expect((await service.pendingNotifications(SESSION, LOOP)).map((pending) => pending.commandId)).toEqual(valid);
    });
  });

  describe('UUID fields', () => {
    const cases = UUID_FIELDS.flatMap((field) => MALFORMED_UUIDS.map(([label, value]) => [field, label, value] as const));

    it.each(cases)('%s %s is rejected as that field', async (field, _label, value) => {
      await expectInvalid(valid({ [field]: value }), field);
    });

    it('accepts upper-case UUIDs and stores them in lower case', async () => {
      const commandId = randomUUID();
      const input = valid({ command_id: commandId.toUpperCase(), session_id: SESSION.toUpperCase(), loop_id: LOOP.toUpperCase() });
      const first = await service.notifyProcessCompletion(SESSION.toUpperCase(), input);
      expect(first).toMatchObject({ disposition: 'accepted', appended: true, commandId });

      const [record] = await service.readJournal(SESSION, first.sequence - 1, 1);
      expect(record).toMatchObject({ sequence: first.sequence, idempotencyId: commandId, loopId: LOOP });
      expect(record!.payload).toEqual({ ...input, command_id: commandId, session_id: SESSION, loop_id: LOOP });
      expect((await service.pendingNotifications(SESSION, LOOP)).find((p) => p.commandId === commandId)).toMatchObject({
        sessionId: SESSION,
        loopId: LOOP,
        sequence: first.sequence,
      });
    });

    it('treats a lower-case retry of an upper-case delivery as identical: duplicate, not a collision', async () => {
      const commandId = randomUUID();
      const upper = valid({ command_id: commandId.toUpperCase(), session_id: SESSION.toUpperCase(), loop_id: LOOP.toUpperCase() });
      const first = await service.notifyProcessCompletion(upper.session_id as string, upper);
      const before = await journalCounts(dataSource);

      const lower = { ...upper, command_id: commandId, session_id: SESSION, loop_id: LOOP };
      await expect(service.notifyProcessCompletion(lower.session_id as string, lower)).resolves.toEqual({
        disposition: 'duplicate',
        appended: false,
        commandId,
        sequence: first.sequence,
      });
      const mixed = { ...lower, command_id: commandId.slice(0, 18).toUpperCase() + commandId.slice(18) };
      await expect(service.notifyProcessCompletion(mixed.session_id as string, mixed)).resolves.toMatchObject({
        disposition: 'duplicate',
        appended: false,
      });
      expect(await journalCounts(dataSource)).toEqual(before);
    });

    it('treats an upper-case retry of a lower-case delivery as identical', async () => {
      const input = valid();
      const first = await service.notifyProcessCompletion(SESSION, input);
      const upper = { ...input, command_id: String(input.command_id).toUpperCase(), loop_id: LOOP.toUpperCase() };
      await expect(service.notifyProcessCompletion(SESSION.toUpperCase(), upper)).resolves.toMatchObject({
        disposition: 'duplicate',
        appended: false,
        sequence: first.sequence,
      });
    });
  });

  describe('process_handle', () => {
    it.each([
      ['1 byte', 'a'],
      ['128 bytes', 'a'.repeat(128)],
      ['every allowed character', 'ABCXYZabcxyz0189-_'],
      ['only a hyphen', '-'],
      ['only an underscore', '_'],
      ['digits only', '0123456789'],
      ['128 mixed bytes', 'Az09-_'.repeat(21) + 'ab'],
    ])('accepts %s', async (_label, handle) => {
      await expectAccepted(valid({ process_handle: handle }));
    });

    it.each([
      ['0 bytes', ''],
      ['129 bytes', 'a'.repeat(129)],
      ['a slash', 'a/b'],
      ['a leading slash', '/proc'],
      ['a dot', 'a.b'],
      ['dot-dot', '..'],
      ['a space', 'a b'],
      ['a tab', 'a\tb'],
      ['a NUL', 'a\u0000b'],
      ['a trailing newline', 'a\n'],
      ['a leading newline', '\na'],
      ['an inner newline', 'a\nb'],
      ['a carriage return', 'a\r'],
      ['non-ASCII (é)', 'é'],
      ['non-ASCII letters under 128 bytes', 'ü'.repeat(10)],
      ['an Arabic-Indic digit', '\u0661'],
      ['an emoji', 'proc-\u{1F600}'],
      ['a colon', 'a:b'],
      ['a backslash', 'a\\b'],
    ])('rejects %s', async (_label, handle) => {
      await expectInvalid(valid({ process_handle: handle }), 'process_handle');
    });
  });

  describe('state and reason', () => {
    // Every state of the contract with every reason: exactly the pairs of its table are accepted
    // (the contract package's table, held to docs/contract.md by test/docs/contract-vocabulary.int-spec.ts).
    const product = PROCESS_STATES.flatMap((state) => TERMINAL_REASONS.map((reason) => [state, reason] as const));
    const inTable = (state: string, reason: string): boolean =>
      Object.entries(TERMINAL_PAIRS).some(([terminal, reasons]) => terminal === state && (reasons as readonly string[]).includes(reason));

    it.each(product)('%s/%s', async (state, reason) => {
      const input = valid({ state, reason });
      if (inTable(state, reason)) await expectAccepted(input);
      else await expectInvalid(input, 'state_reason');
    });

    it.each([
      ['state missing', { state: undefined }],
      ['reason missing', { reason: undefined }],
      ['both missing', { state: undefined, reason: undefined }],
      ['state in upper case', { state: 'EXITED' }],
      ['reason in upper case', { reason: 'EXITED' }],
      ['state with a trailing space', { state: 'exited ' }],
      ['state an inherited property name', { state: 'constructor' }],
      ['reason an inherited property name', { reason: 'toString' }],
      ['state and reason swapped on an asymmetric pair', { state: 'runner_shutdown', reason: 'killed' }],
    ])('%s is field state_reason', async (_label, overrides) => {
      const input = valid(overrides);
      for (const key of Object.keys(overrides)) if (overrides[key as keyof typeof overrides] === undefined) delete input[key];
      await expectInvalid(input, 'state_reason');
    });
  });

  describe('missing fields and wrong JSON types', () => {
    it.each(FIELDS.map((field) => [field] as const))('missing %s fails on that field', async (field) => {
      const input = valid();
      delete input[field];
      await expectInvalid(input, reportedAs(field));
    });

    const cases = FIELDS.flatMap((field) => WRONG_TYPES.map(([label, value]) => [field, label, value] as const));
    it.each(cases)('%s as %s fails on that field', async (field, _label, value) => {
      await expectInvalid(valid({ [field]: value }), reportedAs(field));
    });

    it.each(FIELDS.map((field) => [field] as const))('%s wrapped in an array fails on that field', async (field) => {
      const input = valid();
      await expectInvalid({ ...input, [field]: [input[field]] }, reportedAs(field));
    });

    it('reports the first failing field in schema order', async () => {
      await expectInvalid(valid({ loop_id: 'x', process_handle: 'a/b', state: 'nope' }), 'loop_id');
      await expectInvalid(valid({ process_handle: 'a/b', state: 'nope' }), 'process_handle');
      await expectInvalid(valid({ session_id: 1, command_id: null }), 'command_id');
    });
  });

  describe('unknown properties', () => {
    it.each(['command', 'env', 'pid', 'output', 'stdin', 'cwd', 'argv', 'exit_code', 'id', 'sessionId'])(
      'rejects an extra %s, naming it',
      async (key) => {
        await expectInvalid({ ...valid(), [key]: 'x' }, key);
      },
    );

    it('rejects __proto__ as an own key (as JSON.parse makes it)', async () => {
      const input = JSON.parse(`{"__proto__": {"command": "rm -rf /"}, ${JSON.stringify(valid()).slice(1)}`) as object;
      expect(Object.keys(input)).toContain('__proto__');
      await expectInvalid(input, '__proto__');
    });

    it('rejects constructor as an own key', async () => {
      const input = JSON.parse(`{"constructor": {"prototype": {}}, ${JSON.stringify(valid()).slice(1)}`) as object;
      await expectInvalid(input, 'constructor');
    });

    it('names the unknown property even when a known field is also invalid', async () => {
      await expectInvalid({ ...valid({ command_id: 'bad' }), env: { PATH: '/bin' } }, 'env');
    });

    it('rejects extra properties with any value, including undefined-looking ones', async () => {
      await expectInvalid({ ...valid(), output: null }, 'output');
      await expectInvalid({ ...valid(), pid: 0 }, 'pid');
    });
  });

  describe('non-object inputs', () => {
    it.each([
      ['undefined', undefined],
      ['null', null],
      ['a number', 1],
      ['a string', 'notification'],
      ['the notification as a JSON string', JSON.stringify(notification(SESSION, LOOP))],
      ['a boolean', true],
      ['an empty array', []],
      ['an array holding a notification', [notification(SESSION, LOOP)]],
      ['a Date', new Date()],
      ['a Map', new Map(Object.entries(notification(SESSION, LOOP)))],
    ])('%s fails on command_id', async (_label, input) => {
      await expectInvalid(input, 'command_id');
    });

    it('accepts a null-prototype object with exactly the schema fields', async () => {
      await expectAccepted(Object.assign(Object.create(null) as Record<string, unknown>, valid()));
    });
  });
});
