import { Test, type TestingModule } from '@nestjs/testing';
import {
  ProcessNotificationsModule,
  ProcessNotificationsService,
  type ProcessNotificationsModuleOptions,
} from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { LoopEngine } from 'process-notifications-contract';
import { dataSourceOf } from '../notifications/support/journal-probe.js';

/** A real module on its own in-memory SQLite database (or the one given). */
export async function createTestApp(options: ProcessNotificationsModuleOptions = {}): Promise<{
  moduleRef: TestingModule;
  service: ProcessNotificationsService;
  close: () => Promise<void>;
}> {
  const moduleRef = await Test.createTestingModule({
    imports: [ProcessNotificationsModule.forRoot({ databaseUrl: 'sqlite::memory:', ...options })],
  }).compile();
  await moduleRef.init();
  return { moduleRef, service: moduleRef.get(ProcessNotificationsService), close: () => moduleRef.close() };
}

/** A valid notification for a session and loop; override any field. */
export function notification(sessionId: string, loopId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    command_id: randomUUID(),
    session_id: sessionId,
    loop_id: loopId,
    process_handle: 'proc-1',
    state: 'exited',
    reason: 'exited',
    ...overrides,
  };
}

/** A valid `started` lifecycle record; override any field. */
export function lifecycleRecord(sessionId: string, loopId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: randomUUID(),
    kind: 'started',
    session_id: sessionId,
    loop_id: loopId,
    process_handle: 'proc-1',
    origin_execution_id: randomUUID(),
    state: 'running',
    process_created_at: '2026-01-01T00:00:00Z',
    process_started_at: '2026-01-01T00:00:01Z',
    ...overrides,
  };
}

/** A new session with one native loop (or as `options` say), opened through the service. */
export async function openSessionWithLoop(
  service: ProcessNotificationsService,
  options: { engine?: LoopEngine } = {},
): Promise<{ sessionId: string; loopId: string }> {
  const { sessionId } = await service.openSession();
  const { loopId } = await service.openLoop(sessionId, options);
  return { sessionId, loopId };
}

/** The current test's app and the session and loop opened in it; see `useSessionWithLoop`. */
export interface SessionWithLoop {
  readonly moduleRef: TestingModule;
  readonly service: ProcessNotificationsService;
  /** The module's own DataSource. */
  readonly dataSource: DataSource;
  readonly sessionId: string;
  readonly loopId: string;
  /** Closes this test's app and starts a fresh one with `options`, with a new session and loop in it. */
  restart(options: ProcessNotificationsModuleOptions): Promise<void>;
}

/**
 * Gives every test of the enclosing `describe` a fresh app (as `createTestApp`) with a session and
 * one native loop opened in it, and closes the app after the test. Call it at describe level; read
 * the returned object's properties inside a test or hook, where they are the current test's.
 * `options` may be a function, called before each test: for options made by an earlier hook (a
 * temporary file, a schema). Hooks declared after this call run after its beforeEach and its
 * afterEach, so they may use the app, or remove what it was still using.
 */
export function useSessionWithLoop(
  options: ProcessNotificationsModuleOptions | (() => ProcessNotificationsModuleOptions) = {},
): SessionWithLoop {
  let app: Awaited<ReturnType<typeof createTestApp>> | undefined;
  let ids: { sessionId: string; loopId: string } | undefined;
  const current = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useSessionWithLoop: read its app, session and loop inside a test or hook');
    return value;
  };
  const start = async (moduleOptions: ProcessNotificationsModuleOptions): Promise<void> => {
    app = await createTestApp(moduleOptions);
    ids = await openSessionWithLoop(app.service);
  };
  const stop = async (): Promise<void> => {
    const closing = app;
    app = ids = undefined;
    await closing?.close();
  };

  beforeEach(() => start(typeof options === 'function' ? options() : options));
  afterEach(stop);

  return {
    get moduleRef() {
      return current(app).moduleRef;
    },
    get service() {
      return current(app).service;
    },
    get dataSource() {
      return dataSourceOf(current(app).moduleRef);
    },
    get sessionId() {
      return current(ids).sessionId;
    },
    get loopId() {
      return current(ids).loopId;
    },
    async restart(moduleOptions) {
      await stop();
      await start(moduleOptions);
    },
  };
}
