import { randomUUID } from 'node:crypto';
import type { StateEntry } from '../../../libs/pn-supervise/src/state-entry.interface.js';

/** A state entry with fresh ids and nothing happened yet; override any field. */
export function stateEntry(overrides: Partial<StateEntry> = {}): StateEntry {
  return {
    version: 1,
    command_id: randomUUID(),
    origin_execution_id: randomUUID(),
    session_id: randomUUID(),
    loop_id: randomUUID(),
    process_handle: 'make',
    event_ids: { started: randomUUID(), stop_requested: randomUUID(), completed: randomUUID(), lost: randomUUID() },
    created_at: '2026-01-01T00:00:00.000Z',
    published: [],
    ...overrides,
  };
}
