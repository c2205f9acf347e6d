import { useEffect, useRef, useState } from 'preact/hooks';

/** How often a view with no live stream of its own reads its data again, in milliseconds. */
export const REFRESH_EVERY_MS = 5_000;

/**
 * Calls `reload` every `everyMs` while the view is shown (a view without a live stream still
 * updates by itself), and tells when the data last came: the instant `data` last changed.
 */
export function useRefresh(reload: () => void, data: unknown, everyMs = REFRESH_EVERY_MS): number | undefined {
  const reloadRef = useRef(reload);
  reloadRef.current = reload;
  useEffect(() => {
    const timer = setInterval(() => reloadRef.current(), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  const [updatedAt, setUpdatedAt] = useState<number | undefined>(undefined);
  useEffect(() => {
    if (data !== undefined) setUpdatedAt(Date.now());
  }, [data]);
  return updatedAt;
}
