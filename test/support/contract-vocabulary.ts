/*
 * The closed vocabulary of the contract, written out from its text (section 2) so that tests
 * take their expected answers from the contract, never from the code under test.
 */

/** "states `starting running exited failed timed_out interrupted terminated killed lost_on_restore`" */
export const CONTRACT_STATES = [
  'starting',
  'running',
  'exited',
  'failed',
  'timed_out',
  'interrupted',
  'terminated',
  'killed',
  'lost_on_restore',
] as const;

/** "reasons `exited timed_out interrupted terminated killed runner_shutdown failed output_limit lost_on_restore`" */
export const CONTRACT_REASONS = [
  'exited',
  'timed_out',
  'interrupted',
  'terminated',
  'killed',
  'runner_shutdown',
  'failed',
  'output_limit',
  'lost_on_restore',
] as const;

/** The table "Terminal state/reason pairs (the closed set)", one row per allowed reason. */
export const CONTRACT_TERMINAL_PAIRS: ReadonlyArray<readonly [state: string, reason: string]> = [
  ['exited', 'exited'],
  ['failed', 'failed'],
  ['timed_out', 'timed_out'],
  ['interrupted', 'interrupted'],
  ['terminated', 'terminated'],
  ['terminated', 'runner_shutdown'],
  ['terminated', 'output_limit'],
  ['killed', 'killed'],
  ['killed', 'runner_shutdown'],
  ['killed', 'output_limit'],
  ['lost_on_restore', 'lost_on_restore'],
];

/** True when the contract's table allows `state` with `reason`. */
export function isContractTerminalPair(state: string, reason: string): boolean {
  return CONTRACT_TERMINAL_PAIRS.some(([allowedState, allowedReason]) => allowedState === state && allowedReason === reason);
}

/** Section 6: "`started backgrounded completed stop_requested lost`" */
export const CONTRACT_LIFECYCLE_KINDS = ['started', 'backgrounded', 'completed', 'stop_requested', 'lost'] as const;
