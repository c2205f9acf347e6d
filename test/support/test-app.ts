import { Test, type TestingModule } from '@nestjs/testing';
import {
  ProcessNotificationsModule,
  ProcessNotificationsService,
  type ProcessNotificationsModuleOptions,
} from 'nestjs-process-notifications';
import { randomUUID } from 'node:crypto';

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
  options: { engine?: 'native' | 'foreign' } = {},
): Promise<{ sessionId: string; loopId: string }> {
  const { sessionId } = await service.openSession();
  const { loopId } = await service.openLoop(sessionId, options);
  return { sessionId, loopId };
}
