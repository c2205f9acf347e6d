/** An id, always in full (operators copy them). */
export function IdText(props: { id: string | null | undefined }) {
  if (!props.id) return <span class="none">none</span>;
  return <code class="id">{props.id}</code>;
}
