import { NetworkError, ProblemError } from 'process-notifications-client';

/** What the console says about a failed call: the problem's `detail`, never a stack trace. */
export function problemText(error: unknown): string {
  if (error instanceof ProblemError) return error.detail;
  if (error instanceof NetworkError) return `The server did not answer: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export function ProblemMessage(props: { error: unknown }) {
  return (
    <p role="alert" class="problem">
      {problemText(props.error)}
    </p>
  );
}
