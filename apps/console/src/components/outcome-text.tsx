/** How the process ended, as its `completed` or `lost` record says (spec section 14). */
export interface Outcome {
  readonly event_id: string;
  readonly kind: string;
  readonly has_exit_code: boolean;
  readonly exit_code: number | null;
  readonly diagnostic: string | null;
  /** The signal that ended the command; absent from a server older than the field. */
  readonly signal?: string | null;
}

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
