import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** What a view fetched: loading (with what it had before, if anything), the data, or the error. */
export type Resource<T> =
  | { readonly status: 'loading'; readonly data?: T }
  | { readonly status: 'ready'; readonly data: T }
  | { readonly status: 'failed'; readonly error: unknown; readonly data?: T };

/**
 * Fetches with `load` whenever `deps` change (aborting the previous fetch); `reload()` fetches
 * again, keeping what is shown until the answer comes (no flash of the loading state).
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): [Resource<T>, () => void] {
  const [state, setState] = useState<Resource<T>>({ status: 'loading' });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const previousDeps = useRef<readonly unknown[] | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    const depsChanged = !previousDeps.current || previousDeps.current.some((value, i) => !Object.is(value, deps[i]));
    previousDeps.current = deps;
    // New deps are another thing to show: what was shown goes; a reload keeps it meanwhile.
    setState((previous) =>
      depsChanged
        ? { status: 'loading' }
        : ({ ...previous, status: previous.status === 'failed' ? 'loading' : previous.status } as Resource<T>),
    );
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'ready', data });
      },
      (error: unknown) => {
        if (!controller.signal.aborted)
          setState((previous) => ({ status: 'failed', error, data: depsChanged ? undefined : previous.data }));
      },
    );
    return () => controller.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  // The first render after new deps comes before the effect above: it must not show the old data as theirs.
  const stale = previousDeps.current !== undefined && previousDeps.current.some((value, i) => !Object.is(value, deps[i]));
  return [stale ? { status: 'loading' } : state, reload];
}
