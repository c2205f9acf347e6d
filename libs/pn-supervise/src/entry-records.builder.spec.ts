import { stateEntry } from '../../../test/supervisor/support/state-entry.fixture.js';
import { EntryRecordsBuilder } from './entry-records.builder.js';

const entry = stateEntry;
const STARTED = '2026-01-01T00:00:01.000Z';
const FINISHED = '2026-01-01T00:00:02.000Z';

// Shapes of spec section 6, checked field by field.
describe('EntryRecordsBuilder', () => {
  it('nothing to send before the command ran', () => {
    expect(EntryRecordsBuilder.pending(entry())).toEqual([]);
  });

  it('a run that exited: started, completed with the exit code, then the notification, under the allocated ids', () => {
    const e = entry({
      started_at: STARTED,
      completion: { state: 'exited', reason: 'exited', has_exit_code: true, exit_code: 2, finished_at: FINISHED, exit_status: 2 },
    });
    const [started, completed, notification] = EntryRecordsBuilder.pending(e);
    const common = {
      session_id: e.session_id,
      loop_id: e.loop_id,
      process_handle: 'make',
      origin_execution_id: e.origin_execution_id,
      process_created_at: e.created_at,
    };
    expect(started).toEqual({
      key: 'started',
      lifecycle: { ...common, event_id: e.event_ids.started, kind: 'started', state: 'running', process_started_at: STARTED },
    });
    expect(completed).toEqual({
      key: 'completed',
      lifecycle: {
        ...common,
        event_id: e.event_ids.completed,
        kind: 'completed',
        state: 'exited',
        reason: 'exited',
        process_started_at: STARTED,
        process_finished_at: FINISHED,
        has_exit_code: true,
        exit_code: 2,
        // Links the record to the notification of the same run.
        command_id: e.command_id,
      },
    });
    expect(notification).toEqual({
      key: 'notification',
      notification: {
        command_id: e.command_id,
        session_id: e.session_id,
        loop_id: e.loop_id,
        process_handle: 'make',
        state: 'exited',
        reason: 'exited',
      },
    });
  });

  it('a run a signal ended: the completed record names the signal; an entry written without one sends none', () => {
    const signalled = entry({
      started_at: STARTED,
      completion: { state: 'killed', reason: 'killed', signal: 'SIGSEGV', finished_at: FINISHED, exit_status: 139 },
    });
    const [, completed] = EntryRecordsBuilder.pending(signalled);
    expect(completed).toMatchObject({ key: 'completed', lifecycle: { state: 'killed', reason: 'killed', signal: 'SIGSEGV' } });
    expect(completed).toEqual(EntryRecordsBuilder.pending(signalled)[1]);
    const older = entry({
      started_at: STARTED,
      completion: { state: 'killed', reason: 'killed', finished_at: FINISHED, exit_status: 137 },
    });
    expect(Object.keys((EntryRecordsBuilder.pending(older)[1] as { lifecycle: object }).lifecycle)).not.toContain('signal');
  });

  it('skips what was answered already, and builds the same bodies every time', () => {
    const e = entry({ started_at: STARTED, completion: { state: 'killed', reason: 'killed', finished_at: FINISHED, exit_status: 137 } });
    const before = EntryRecordsBuilder.pending(e);
    e.published.push('started', 'completed');
    expect(EntryRecordsBuilder.pending(e)).toEqual([before[2]]);
  });

  it('stop_requested: state running with started set; starting without it; never finished or an exit code', () => {
    const running = EntryRecordsBuilder.pending(entry({ started_at: STARTED, stop_request: { reason: 'terminated' } }));
    expect(running.map((r) => r.key)).toEqual(['started', 'stop_requested']);
    // command_id only on completed and lost (spec section 14).
    for (const record of running) expect(record).not.toHaveProperty('lifecycle.command_id');
    expect(running[1]).toMatchObject({
      lifecycle: { kind: 'stop_requested', state: 'running', reason: 'terminated', process_started_at: STARTED },
    });
    const starting = EntryRecordsBuilder.pending(entry({ stop_request: { reason: 'interrupted' } }));
    expect(starting).toHaveLength(1);
    expect(starting[0]).toMatchObject({ lifecycle: { kind: 'stop_requested', state: 'starting', reason: 'interrupted' } });
    for (const record of [...running, ...starting]) {
      if (!('lifecycle' in record)) continue;
      expect(Object.keys(record.lifecycle)).not.toEqual(expect.arrayContaining(['process_finished_at']));
      expect(Object.keys(record.lifecycle)).not.toContain('has_exit_code');
      expect(Object.keys(record.lifecycle)).not.toContain('diagnostic');
    }
  });

  it('failed to start: completed without started or exit code, with the diagnostic', () => {
    const [completed] = EntryRecordsBuilder.pending(
      entry({
        completion: { state: 'failed', reason: 'failed', diagnostic: 'command not found', finished_at: FINISHED, exit_status: 127 },
      }),
    );
    expect(completed).toMatchObject({
      key: 'completed',
      lifecycle: { state: 'failed', reason: 'failed', diagnostic: 'command not found', process_finished_at: FINISHED },
    });
    expect(Object.keys((completed as { lifecycle: object }).lifecycle)).not.toEqual(expect.arrayContaining(['process_started_at']));
    expect(Object.keys((completed as { lifecycle: object }).lifecycle)).not.toContain('exit_code');
  });

  it('lost: the lost kind with its own event id, lost_on_restore in the notification', () => {
    const e = entry({
      started_at: STARTED,
      published: ['started'],
      completion: { state: 'lost_on_restore', reason: 'lost_on_restore', diagnostic: 'gone', finished_at: FINISHED, exit_status: 0 },
    });
    const [lost, notification] = EntryRecordsBuilder.pending(e);
    expect(lost).toMatchObject({
      key: 'lost',
      lifecycle: {
        event_id: e.event_ids.lost,
        kind: 'lost',
        state: 'lost_on_restore',
        reason: 'lost_on_restore',
        process_finished_at: FINISHED,
        command_id: e.command_id,
      },
    });
    expect(notification).toMatchObject({ notification: { command_id: e.command_id, state: 'lost_on_restore', reason: 'lost_on_restore' } });
  });
});
