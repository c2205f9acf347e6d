import { constants } from 'node:os';
import type { PendingNotification, ProcessOutcome } from 'process-notifications-client';
import { ShellExitStatusMapper } from './shell-exit-status.mapper.js';

const outcome = (fields: Partial<ProcessOutcome> = {}): ProcessOutcome => ({
  event_id: '0b7e3c1a-3f1e-4a53-9d6e-6c1f0d3b9a11',
  kind: 'completed',
  has_exit_code: false,
  exit_code: null,
  diagnostic: null,
  signal: null,
  process_started_at: null,
  process_finished_at: null,
  ...fields,
});

const notification = (state: string, reason: string, fields: Partial<ProcessOutcome> | null = {}): PendingNotification =>
  ({
    command_id: '5d1f6c2e-8a4b-4f0e-9c3d-2b7a1e6f4c55',
    session_id: '6a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d',
    loop_id: '7b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d9e',
    process_handle: 'make-1a2b3c4d',
    state,
    reason,
    sequence: 7,
    outcome: fields === null ? null : outcome(fields),
  }) as PendingNotification;

// Spec section 16: pn wait exits as a shell would have, by the first rule that applies.
describe('ShellExitStatusMapper', () => {
  it.each([
    ['exited 0', notification('exited', 'exited', { has_exit_code: true, exit_code: 0 }), 0],
    ['exited 3', notification('exited', 'exited', { has_exit_code: true, exit_code: 3 }), 3],
    ['timed out, even with the timeout’s signal', notification('timed_out', 'timed_out', { signal: 'SIGTERM' }), 124],
    ['failed to start', notification('failed', 'failed', { diagnostic: 'not found' }), 127],
    ['lost', notification('lost_on_restore', 'lost_on_restore', { kind: 'lost' }), 125],
    ['SIGSEGV', notification('killed', 'killed', { signal: 'SIGSEGV' }), 128 + constants.signals.SIGSEGV],
    ['SIGUSR1', notification('killed', 'killed', { signal: 'SIGUSR1' }), 128 + constants.signals.SIGUSR1],
    ['SIGINT told as a signal', notification('interrupted', 'interrupted', { signal: 'SIGINT' }), 130],
    ['interrupted, no signal', notification('interrupted', 'interrupted', { signal: null }), 130],
    ['terminated, no signal', notification('terminated', 'runner_shutdown'), 143],
    ['killed, no signal', notification('killed', 'output_limit'), 137],
    ['a signal unknown here', notification('killed', 'killed', { signal: 'SIGNOTHERE' }), 1],
  ])('%s', (_what, given, status) => {
    expect(ShellExitStatusMapper.map(given)).toBe(status);
  });

  it('reads the signal numbers of the machine pn runs on', () => {
    expect(ShellExitStatusMapper.map(notification('killed', 'killed', { signal: 'SIGUSR1' }), { SIGUSR1: 30 })).toBe(158);
  });

  it('does not take an inherited property for a signal', () => {
    expect(ShellExitStatusMapper.map(notification('killed', 'killed', { signal: 'toString' }))).toBe(1);
  });
});
