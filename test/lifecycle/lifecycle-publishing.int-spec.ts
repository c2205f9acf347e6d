import { EventBus, EventsHandler, ofType, type IEventHandler } from '@nestjs/cqrs';
import { Test, type TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  IdempotencyCollisionError,
  JournalUnavailableError,
  OwnerMismatchError,
  ProcessBackgroundedEvent,
  ProcessCompletedEvent,
  ProcessLostEvent,
  ProcessNotificationsModule,
  ProcessNotificationsService,
  ProcessStartedEvent,
  ProcessStopRequestedEvent,
  SessionNotFoundError,
  ValidationError,
  type JournalRecordView,
  type LifecycleKind,
  type ProcessLifecycleEvent,
} from 'nestjs-process-notifications';

const LIFECYCLE_EVENTS = [
  ProcessStartedEvent,
  ProcessBackgroundedEvent,
  ProcessCompletedEvent,
  ProcessStopRequestedEvent,
  ProcessLostEvent,
];

/** A host's handler, as an embedding application would register it. */
@EventsHandler(ProcessCompletedEvent)
class CompletedProcesses implements IEventHandler<ProcessCompletedEvent> {
  readonly seen: ProcessCompletedEvent[] = [];

  handle(event: ProcessCompletedEvent): void {
    this.seen.push(event);
  }
}

/** A valid record of each kind for a session; override any field. */
function lifecycleRecord(sessionId: string, kind: LifecycleKind, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const common = {
    event_id: randomUUID(),
    kind,
    session_id: sessionId,
    loop_id: randomUUID(),
    process_handle: 'proc-1',
    origin_execution_id: randomUUID(),
  };
  const byKind: Record<LifecycleKind, Record<string, unknown>> = {
    started: { state: 'running', process_created_at: '2026-11-01T10:00:00Z', process_started_at: '2026-11-01T10:00:01Z' },
    backgrounded: { state: 'running', process_created_at: '2026-11-01T10:00:00Z', process_started_at: '2026-11-01T10:00:01Z' },
    stop_requested: {
      state: 'running',
      process_created_at: '2026-11-01T10:00:00Z',
      process_started_at: '2026-11-01T10:00:01Z',
      reason: 'terminated',
    },
    completed: {
      state: 'exited',
      process_created_at: '2026-11-01T10:00:00Z',
      process_started_at: '2026-11-01T10:00:01Z',
      process_finished_at: '2026-11-01T10:01:00Z',
      has_exit_code: true,
      exit_code: 0,
      reason: 'exited',
    },
    lost: {
      state: 'lost_on_restore',
      process_created_at: '2026-11-01T10:00:00Z',
      process_finished_at: '2026-11-01T10:01:00Z',
      diagnostic: 'supervisor restarted',
      reason: 'lost_on_restore',
    },
  };
  return { ...common, ...byKind[kind], ...overrides };
}

describe('publishing lifecycle records (real module, in-memory SQLite)', () => {
  let moduleRef: TestingModule;
  let service: ProcessNotificationsService;
  let completed: CompletedProcesses;
  let events: ProcessLifecycleEvent[];
  let sessionId: string;

  beforeEach(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ProcessNotificationsModule.forRoot({ databaseUrl: 'sqlite::memory:' })],
      providers: [CompletedProcesses],
    }).compile();
    await moduleRef.init();
    service = moduleRef.get(ProcessNotificationsService);
    completed = moduleRef.get(CompletedProcesses);
    events = [];
    moduleRef
      .get(EventBus)
      .pipe(ofType(...LIFECYCLE_EVENTS))
      .subscribe((event) => events.push(event));
    ({ sessionId } = await service.openSession());
  });

  afterEach(() => moduleRef.close());

  const journal = (): Promise<JournalRecordView[]> => service.readJournal(sessionId, 0, 1000);

  it('journals each kind and then publishes its event with the record, the sequence and the journal time', async () => {
    const committed = new Set<number>();
    const subscription = service.records$.subscribe((record) => committed.add(record.sequence));
    const seenAfterCommit: boolean[] = [];
    const probe = moduleRef
      .get(EventBus)
      .pipe(ofType(...LIFECYCLE_EVENTS))
      .subscribe((event) => seenAfterCommit.push(committed.has(event.sequence)));

    const expected = [
      ['started', ProcessStartedEvent],
      ['backgrounded', ProcessBackgroundedEvent],
      ['stop_requested', ProcessStopRequestedEvent],
      ['completed', ProcessCompletedEvent],
      ['lost', ProcessLostEvent],
    ] as const;
    for (const [kind] of expected) {
      const record = lifecycleRecord(sessionId, kind);
      await expect(service.publishProcessLifecycle(record.session_id as string, record)).resolves.toEqual({
        eventId: record.event_id,
        sequence: expect.any(Number),
        appended: true,
      });
    }
    subscription.unsubscribe();
    probe.unsubscribe();

    const records = await journal();
    expect(records.map((record) => record.kind)).toEqual(expected.map(([kind]) => kind));
    expect(events).toHaveLength(5);
    expected.forEach(([kind, type], i) => {
      const event = events[i]!;
      expect(event).toBeInstanceOf(type);
      expect(event.record.kind).toBe(kind);
      expect(event.record).toEqual(records[i]!.payload);
      expect(event.sequence).toBe(records[i]!.sequence);
      expect(event.createdAt).toBe(records[i]!.createdAt);
    });
    expect(seenAfterCommit).toEqual([true, true, true, true, true]);
    expect(completed.seen).toEqual([events[3]]);
  });

  it('an identical retry succeeds with appended false: one record, one event (also with upper-case UUIDs)', async () => {
    const record = lifecycleRecord(sessionId, 'completed');
    const first = await service.publishProcessLifecycle(record.session_id as string, record);
    const upper = Object.fromEntries(
      Object.entries(record).map(([key, value]) => [key, key.endsWith('_id') ? (value as string).toUpperCase() : value]),
    );
    const retries = [
      await service.publishProcessLifecycle(record.session_id as string, record),
      await service.publishProcessLifecycle(sessionId.toUpperCase(), { ...record }),
      await service.publishProcessLifecycle(upper.session_id as string, upper),
    ];

    expect(first.appended).toBe(true);
    expect(retries).toEqual(retries.map(() => ({ eventId: first.eventId, sequence: first.sequence, appended: false })));
    expect(await journal()).toHaveLength(1);
    expect(completed.seen).toHaveLength(1);
    expect(events).toHaveLength(1);
  });

  it('a different record under the same event_id is a collision: nothing written, no event', async () => {
    const record = lifecycleRecord(sessionId, 'completed');
    const { sequence } = await service.publishProcessLifecycle(record.session_id as string, record);
    events.length = 0;

    for (const changed of [
      { ...record, exit_code: 1 },
      { ...record, process_finished_at: '2026-11-01T10:01:00.000Z' },
      lifecycleRecord(sessionId, 'lost', { event_id: record.event_id }),
    ]) {
      const publication = service.publishProcessLifecycle(changed.session_id as string, changed);
      await expect(publication).rejects.toThrow(IdempotencyCollisionError);
      await expect(publication).rejects.toMatchObject({
        code: 'idempotency_collision',
        disposition: 'collision',
        idempotencyId: record.event_id,
        sequence,
      });
    }
    expect(await journal()).toHaveLength(1);
    expect(events).toHaveLength(0);
    expect(completed.seen).toHaveLength(1);
  });

  it('a changed, added or dropped command_id under the same event_id is a collision (section 14)', async () => {
    const record = lifecycleRecord(sessionId, 'completed', { command_id: randomUUID() });
    const { sequence } = await service.publishProcessLifecycle(sessionId, record);
    // The same command_id in upper case is the same record.
    await expect(
      service.publishProcessLifecycle(sessionId, { ...record, command_id: (record.command_id as string).toUpperCase() }),
    ).resolves.toEqual({ eventId: record.event_id, sequence, appended: false });
    events.length = 0;

    const { command_id: _dropped, ...without } = record;
    for (const changed of [{ ...record, command_id: randomUUID() }, without]) {
      await expect(service.publishProcessLifecycle(sessionId, changed)).rejects.toMatchObject({
        code: 'idempotency_collision',
        idempotencyId: record.event_id,
        sequence,
      });
    }
    const plain = lifecycleRecord(sessionId, 'lost');
    const first = await service.publishProcessLifecycle(sessionId, plain);
    await expect(service.publishProcessLifecycle(sessionId, { ...plain, command_id: randomUUID() })).rejects.toMatchObject({
      code: 'idempotency_collision',
      sequence: first.sequence,
    });
    expect(await journal()).toHaveLength(2);
    expect(events).toHaveLength(1);
  });

  it('signal is part of the fingerprint: the same signal is a duplicate, a changed, added or dropped one a collision', async () => {
    const killed = { state: 'killed', reason: 'killed', has_exit_code: undefined, exit_code: undefined };
    const record = JSON.parse(JSON.stringify(lifecycleRecord(sessionId, 'completed', { ...killed, signal: 'SIGSEGV' }))) as Record<
      string,
      unknown
    >;
    const { sequence } = await service.publishProcessLifecycle(sessionId, record);
    await expect(service.publishProcessLifecycle(sessionId, { ...record })).resolves.toEqual({
      eventId: record.event_id,
      sequence,
      appended: false,
    });
    const { signal: _dropped, ...without } = record;
    for (const changed of [{ ...record, signal: 'SIGKILL' }, without]) {
      await expect(service.publishProcessLifecycle(sessionId, changed)).rejects.toMatchObject({
        code: 'idempotency_collision',
        idempotencyId: record.event_id,
        sequence,
      });
    }
    const plain = JSON.parse(JSON.stringify(lifecycleRecord(sessionId, 'completed', killed))) as Record<string, unknown>;
    const first = await service.publishProcessLifecycle(sessionId, plain);
    await expect(service.publishProcessLifecycle(sessionId, { ...plain, signal: 'SIGUSR1' })).rejects.toMatchObject({
      code: 'idempotency_collision',
      sequence: first.sequence,
    });
    const entries = await journal();
    expect(entries.map((entry) => entry.payload!.signal)).toEqual(['SIGSEGV', undefined]);
    // Journaled last, after command_id's place, exactly as sent.
    expect(Object.keys(entries[0]!.payload!).at(-1)).toBe('signal');
    expect(events).toHaveLength(2);
    expect(events[0]!.record.signal).toBe('SIGSEGV');
  });

  it('journals command_id last, lower-cased, and publishes it with the event', async () => {
    const commandId = randomUUID();
    const record = lifecycleRecord(sessionId, 'lost', { command_id: commandId.toUpperCase() });
    await service.publishProcessLifecycle(sessionId, record);
    const [entry] = await journal();
    expect(Object.keys(entry!.payload!).at(-2)).toBe('reason');
    expect(Object.keys(entry!.payload!).at(-1)).toBe('command_id');
    expect(entry!.payload!.command_id).toBe(commandId);
    expect(events[0]).toBeInstanceOf(ProcessLostEvent);
    expect(events[0]!.record.command_id).toBe(commandId);
  });

  it('refuses command_id on other kinds and equal to event_id, journaling nothing', async () => {
    for (const kind of ['started', 'backgrounded', 'stop_requested'] as const) {
      await expect(
        service.publishProcessLifecycle(sessionId, lifecycleRecord(sessionId, kind, { command_id: randomUUID() })),
      ).rejects.toMatchObject({
        code: 'invalid_field',
        field: 'command_id',
      });
    }
    const id = randomUUID();
    await expect(
      service.publishProcessLifecycle(sessionId, lifecycleRecord(sessionId, 'completed', { event_id: id, command_id: id.toUpperCase() })),
    ).rejects.toMatchObject({ code: 'invalid_field', field: 'command_id' });
    expect(await journal()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('checks the owner before validation and journals nothing on a mismatch', async () => {
    const other = randomUUID();
    await service.openSession(other);
    const foreign = lifecycleRecord(other, 'started');
    const malformed = { ...lifecycleRecord(other, 'started'), kind: 'exploded', command: 'rm -rf /' };
    const unparseable = { ...lifecycleRecord('not-a-uuid', 'started'), kind: 'exploded' };

    for (const record of [foreign, malformed, unparseable] as Record<string, unknown>[]) {
      const publication = service.publishProcessLifecycle(sessionId, record);
      await expect(publication).rejects.toThrow(OwnerMismatchError);
      await expect(publication).rejects.toMatchObject({
        code: 'owner_mismatch',
        wanted: sessionId,
        got: (record.session_id as string).toLowerCase(),
      });
    }
    expect(await journal()).toEqual([]);
    expect(await service.readJournal(other)).toEqual([]);
    expect(events).toEqual([]);
  });

  it('validates only after the owner check passes', async () => {
    const noSession = { ...lifecycleRecord(sessionId, 'started'), session_id: 42, command: 'ls' };
    await expect(service.publishProcessLifecycle(sessionId, noSession)).rejects.toMatchObject({ field: 'command' });
    const wrongType = { ...lifecycleRecord(sessionId, 'started'), session_id: 42 };
    await expect(service.publishProcessLifecycle(sessionId, wrongType)).rejects.toMatchObject({ field: 'session_id' });
    const bad = lifecycleRecord(sessionId.toUpperCase(), 'started', { process_started_at: '2026-11-01 10:00:01Z' });
    await expect(service.publishProcessLifecycle(sessionId, bad)).rejects.toThrow(ValidationError);
    expect(await journal()).toEqual([]);
    expect(events).toEqual([]);
  });

  it('needs an open session but not an open loop', async () => {
    const stranger = randomUUID();
    await expect(service.publishProcessLifecycle(stranger, lifecycleRecord(stranger, 'started'))).rejects.toThrow(SessionNotFoundError);
    await expect(service.publishProcessLifecycle(sessionId, lifecycleRecord(sessionId, 'started'))).resolves.toMatchObject({
      appended: true,
    });
    expect(events).toHaveLength(1);
  });

  it('a failed append reports journal_unavailable and emits nothing; the retry then writes once', async () => {
    const dataSource = moduleRef.get<DataSource>(getDataSourceToken('process-notifications'));
    await dataSource.query(
      `CREATE TRIGGER refuse_lifecycle BEFORE INSERT ON pn_journal WHEN NEW.kind = 'completed' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`,
    );
    const record = lifecycleRecord(sessionId, 'completed');
    const publication = service.publishProcessLifecycle(record.session_id as string, record);
    await expect(publication).rejects.toThrow(JournalUnavailableError);
    await expect(publication).rejects.toMatchObject({ code: 'journal_unavailable' });
    expect(await journal()).toEqual([]);
    expect(events).toEqual([]);
    expect(completed.seen).toEqual([]);

    await dataSource.query('DROP TRIGGER refuse_lifecycle');
    await expect(service.publishProcessLifecycle(record.session_id as string, record)).resolves.toMatchObject({ appended: true });
    expect(await journal()).toHaveLength(1);
    expect(completed.seen).toHaveLength(1);
  });

  it('50 concurrent identical publishes write one record and emit one event', async () => {
    const record = lifecycleRecord(sessionId, 'completed');
    const results = await Promise.all(
      Array.from({ length: 50 }, () => service.publishProcessLifecycle(record.session_id as string, { ...record })),
    );

    expect(results.filter((result) => result.appended)).toHaveLength(1);
    expect(new Set(results.map((result) => result.sequence)).size).toBe(1);
    expect(await journal()).toHaveLength(1);
    expect(events).toHaveLength(1);
    expect(completed.seen).toHaveLength(1);
  });

  it('journals the record in table order, UUIDs lower-cased, timestamps exactly as sent', async () => {
    const ids = { event_id: randomUUID(), loop_id: randomUUID(), origin_execution_id: randomUUID() };
    const record = lifecycleRecord(sessionId, 'completed', {
      event_id: ids.event_id.toUpperCase(),
      session_id: sessionId.toUpperCase(),
      loop_id: ids.loop_id.toUpperCase(),
      origin_execution_id: ids.origin_execution_id.toUpperCase(),
      process_created_at: '2026-11-01t12:00:00.500000+02:00',
      process_started_at: '2026-11-01T10:00:00.5z',
      process_finished_at: '2026-11-01T05:00:00.5000001-05:00',
      exit_code: -2_147_483_648,
    });
    // Keys sent in reverse order: the journal keeps the contract's order, not the sender's.
    const reversed = Object.fromEntries(Object.entries(record).reverse());
    await service.publishProcessLifecycle(reversed.session_id as string, reversed);

    const [entry] = await journal();
    expect(entry).toMatchObject({ kind: 'completed', loopId: ids.loop_id, idempotencyId: ids.event_id, causeCommandId: null });
    expect(Object.keys(entry!.payload!)).toEqual([
      'event_id',
      'kind',
      'session_id',
      'loop_id',
      'process_handle',
      'origin_execution_id',
      'state',
      'process_created_at',
      'process_started_at',
      'process_finished_at',
      'has_exit_code',
      'exit_code',
      'reason',
    ]);
    expect(entry!.payload).toEqual({
      ...record,
      ...ids,
      session_id: sessionId,
    });
    expect(entry!.payload!.process_created_at).toBe('2026-11-01t12:00:00.500000+02:00');
    expect(entry!.payload!.process_started_at).toBe('2026-11-01T10:00:00.5z');
    expect(entry!.payload!.process_finished_at).toBe('2026-11-01T05:00:00.5000001-05:00');
    expect(completed.seen[0]!.record).toEqual(entry!.payload);
    expect(Object.isFrozen(completed.seen[0]!.record)).toBe(true);
  });
});
