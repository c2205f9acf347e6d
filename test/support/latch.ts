/**
 * A promise and the function that resolves it, for a test to hold work at a point (inside a
 * journal transaction, say) until it releases it. Node 20 has no `Promise.withResolvers`.
 */
export function latch(): [Promise<void>, () => void] {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return [promise, release];
}
