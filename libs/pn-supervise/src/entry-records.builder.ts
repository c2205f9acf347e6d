import type { LifecycleRecord, ProcessCompletionNotification } from 'process-notifications-contract';
import type { EntryRecordKey, StateEntry } from './state-entry.interface.js';

/** One record of an entry, ready to send. */
export type EntryRecord =
  | { readonly key: Exclude<EntryRecordKey, 'notification'>; readonly lifecycle: LifecycleRecord }
  | { readonly key: 'notification'; readonly notification: ProcessCompletionNotification };

/**
 * The records an entry stands for, in publishing order (started, stop_requested, completed or
 * lost, then the notification), built only from what the entry holds so that a retry is
 * byte-identical. Shapes follow spec section 6.
 */
export class EntryRecordsBuilder {
  /** The records not answered yet that can be sent now. */
  static pending(entry: StateEntry): EntryRecord[] {
    return EntryRecordsBuilder.all(entry).filter((record) => !entry.published.includes(record.key));
  }

  static all(entry: StateEntry): EntryRecord[] {
    const base = {
      session_id: entry.session_id,
      loop_id: entry.loop_id,
      process_handle: entry.process_handle,
      origin_execution_id: entry.origin_execution_id,
      process_created_at: entry.created_at,
    };
    const started = entry.started_at === undefined ? {} : { process_started_at: entry.started_at };
    const records: EntryRecord[] = [];
    if (entry.started_at !== undefined) {
      records.push({
        key: 'started',
        lifecycle: { ...base, ...started, event_id: entry.event_ids.started, kind: 'started', state: 'running' },
      });
    }
    if (entry.stop_request) {
      // Started is set exactly when the state is running.
      const state = entry.started_at === undefined ? 'starting' : 'running';
      records.push({
        key: 'stop_requested',
        lifecycle: {
          ...base,
          ...started,
          event_id: entry.event_ids.stop_requested,
          kind: 'stop_requested',
          state,
          reason: entry.stop_request.reason,
        },
      });
    }
    const completion = entry.completion;
    if (completion) {
      const lost = completion.state === 'lost_on_restore';
      const key = lost ? 'lost' : 'completed';
      // The link to the notification that reports the same run (spec section 14).
      const lifecycle: LifecycleRecord & { readonly command_id: string } = {
        ...base,
        ...started,
        event_id: entry.event_ids[key],
        kind: key,
        state: completion.state,
        reason: completion.reason,
        process_finished_at: completion.finished_at,
        ...(completion.has_exit_code ? { has_exit_code: true, exit_code: completion.exit_code } : {}),
        ...(completion.diagnostic === undefined ? {} : { diagnostic: completion.diagnostic }),
        command_id: entry.command_id,
        // The signal that ended the command (section 6); an entry written without it sends none.
        ...(completion.signal === undefined ? {} : { signal: completion.signal }),
      };
      records.push({ key, lifecycle });
      const notification = {
        command_id: entry.command_id,
        session_id: entry.session_id,
        loop_id: entry.loop_id,
        process_handle: entry.process_handle,
        state: completion.state,
        reason: completion.reason,
      } as ProcessCompletionNotification;
      records.push({ key: 'notification', notification });
    }
    return records;
  }
}
