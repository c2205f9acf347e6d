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
