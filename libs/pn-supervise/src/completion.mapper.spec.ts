import { CompletionMapper } from './completion.mapper.js';

// Expected pairs and statuses from spec section 10 (and the shell's 128 + signal number).
describe('CompletionMapper', () => {
  const ended = (code: number | null, signal: NodeJS.Signals | null, extra: object = {}) =>
    CompletionMapper.map({ kind: 'ended', code, signal, escalated: false, ...extra });

  it('exit status N: exited, with the exit code, and N as the status', () => {
    expect(ended(0, null)).toEqual({ state: 'exited', reason: 'exited', has_exit_code: true, exit_code: 0, exit_status: 0 });
    expect(ended(42, null)).toEqual({ state: 'exited', reason: 'exited', has_exit_code: true, exit_code: 42, exit_status: 42 });
  });

  it('signals: SIGINT interrupted, SIGTERM terminated, SIGKILL and others killed, each naming its signal; 128 + the number', () => {
    expect(ended(null, 'SIGINT')).toEqual({ state: 'interrupted', reason: 'interrupted', signal: 'SIGINT', exit_status: 130 });
    expect(ended(null, 'SIGTERM')).toEqual({ state: 'terminated', reason: 'terminated', signal: 'SIGTERM', exit_status: 143 });
    expect(ended(null, 'SIGKILL')).toEqual({ state: 'killed', reason: 'killed', signal: 'SIGKILL', exit_status: 137 });
    expect(ended(null, 'SIGSEGV')).toEqual({ state: 'killed', reason: 'killed', signal: 'SIGSEGV', exit_status: 139 });
    expect(ended(null, 'SIGHUP')).toEqual({ state: 'killed', reason: 'killed', signal: 'SIGHUP', exit_status: 129 });
    expect(ended(null, 'SIGUSR1')).toEqual({ state: 'killed', reason: 'killed', signal: 'SIGUSR1', exit_status: 138 });
  });

  it('cannot start: failed with a diagnostic naming the cause, 127 when not found, 126 otherwise', () => {
    const notFound = CompletionMapper.map({ kind: 'not_started', errno: 'ENOENT' });
    expect(notFound).toMatchObject({ state: 'failed', reason: 'failed', exit_status: 127 });
    expect(notFound.diagnostic).toMatch(/not found/);
    expect(CompletionMapper.map({ kind: 'not_started', errno: 'EACCES' })).toMatchObject({
      state: 'failed',
      exit_status: 126,
      diagnostic: expect.stringMatching(/permission denied/),
    });
    expect(CompletionMapper.map({ kind: 'not_started', errno: 'ENOEXEC' })).toMatchObject({ state: 'failed', exit_status: 126 });
  });

  it('the timeout: timed_out, whatever ended the command, naming the signal that did; the command’s own status', () => {
    expect(ended(null, 'SIGTERM', { stopCause: 'timeout' })).toEqual({
      state: 'timed_out',
      reason: 'timed_out',
      signal: 'SIGTERM',
      exit_status: 143,
    });
    expect(ended(0, null, { stopCause: 'timeout' })).toEqual({ state: 'timed_out', reason: 'timed_out', exit_status: 0 });
    expect(ended(null, 'SIGKILL', { stopCause: 'timeout', escalated: true })).toEqual({
      state: 'timed_out',
      reason: 'timed_out',
      signal: 'SIGKILL',
      exit_status: 137,
    });
  });

  it('the output limit: terminated, or killed when SIGKILL was needed, with reason output_limit', () => {
    expect(ended(null, 'SIGTERM', { stopCause: 'output_limit' })).toEqual({
      state: 'terminated',
      reason: 'output_limit',
      signal: 'SIGTERM',
      exit_status: 143,
    });
    expect(ended(null, 'SIGKILL', { stopCause: 'output_limit', escalated: true })).toEqual({
      state: 'killed',
      reason: 'output_limit',
      signal: 'SIGKILL',
      exit_status: 137,
    });
  });

  it('the supervisor told to stop: runner_shutdown whatever the command’s own exit, the supervisor’s signal as status', () => {
    expect(ended(0, null, { stopCause: 'runner_shutdown', shutdownSignal: 'SIGTERM' })).toEqual({
      state: 'terminated',
      reason: 'runner_shutdown',
      exit_status: 143,
    });
    expect(ended(null, 'SIGINT', { stopCause: 'runner_shutdown', shutdownSignal: 'SIGINT' })).toEqual({
      state: 'terminated',
      reason: 'runner_shutdown',
      signal: 'SIGINT',
      exit_status: 130,
    });
    expect(ended(null, 'SIGKILL', { stopCause: 'runner_shutdown', shutdownSignal: 'SIGINT', escalated: true })).toEqual({
      state: 'killed',
      reason: 'runner_shutdown',
      signal: 'SIGKILL',
      exit_status: 130,
    });
  });

  it('a signal name outside the contract’s pattern is left out rather than refused by the server', () => {
    expect(ended(null, 'SIGrtmin' as NodeJS.Signals)).toEqual({ state: 'killed', reason: 'killed', exit_status: 128 });
  });
});
