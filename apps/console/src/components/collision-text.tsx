import type { Refusal } from 'process-notifications-client';

/** Where a collision's original is: its journal sequence in the refusal's session. */
export function OriginalText(props: { refusal: Refusal }) {
  if (props.refusal.original_sequence === null) return <span class="none">none</span>;
  return <>sequence {props.refusal.original_sequence}</>;
}

/** The names of the fields a collision changed (never their values). */
export function DifferingFields(props: { refusal: Refusal }) {
  const fields = props.refusal.differing_fields;
  if (fields === null) return <span class="none">none</span>;
  if (fields.length === 0) return <span class="none">unknown (the original&apos;s payload was dropped)</span>;
  return <>{fields.flatMap((field, i) => [i > 0 ? ', ' : null, <code key={field}>{field}</code>])}</>;
}
