/** Shown while a view's data is fetched. */
export function Loading(props: { what?: string }) {
  return (
    <p role="status" class="loading" aria-busy="true">
      Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}
