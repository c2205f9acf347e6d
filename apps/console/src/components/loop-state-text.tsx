import type { LoopState } from 'process-notifications-client';

/**
 * A loop's state as it acts: a loop of a closed session takes no more deliveries, stops or
 * consumes, so it is shown closed with its session, never running (the API still names the
 * state it had when the session closed).
 */
export function LoopStateText(props: { state: LoopState; sessionClosed: boolean }) {
  if (!props.sessionClosed) return <>{props.state}</>;
  return <span data-loop-state="session-closed">{props.state === 'stopped' ? 'stopped, session closed' : 'session closed'}</span>;
}
