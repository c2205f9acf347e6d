import type { ProcessOutcome } from 'process-notifications-contract';

/**
 * How the process ended, as its `completed` or `lost` record says (spec section 14): the
 * contract's outcome, whose `signal` is absent from a server older than the field.
 */
export type Outcome = Pick<ProcessOutcome, 'event_id' | 'kind' | 'has_exit_code' | 'exit_code' | 'diagnostic'> &
  Partial<Pick<ProcessOutcome, 'signal'>>;

/**
 * `completed, exit code 0`; `completed, signal SIGSEGV` (what ended it, not just `killed`);
 * `lost: <diagnostic>`; or that no record has told it yet.
 */
export function OutcomeText(props: { outcome: Outcome | null | undefined }) {
  const outcome = props.outcome;
  if (!outcome) return <span class="none">not known yet</span>;
  return (
    <span>
      {outcome.kind}
      {outcome.has_exit_code && outcome.exit_code !== null ? `, exit code ${outcome.exit_code}` : ''}
      {outcome.signal ? `, signal ${outcome.signal}` : ''}
      {outcome.diagnostic ? `: ${outcome.diagnostic}` : ''}
    </span>
  );
}

/** The `outcome` of an entry, on a server that sends it. */
export const outcomeOf = (entry: object): Outcome | null | undefined => (entry as { outcome?: Outcome | null }).outcome;
