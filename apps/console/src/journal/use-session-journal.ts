import { useEffect, useRef, useState } from 'preact/hooks';
import type { JournalRecord } from 'process-notifications-client';
import type { ConsoleClients } from '../api/console-clients.js';
import { problemText } from '../components/problem-message.js';

/** Whether the timeline is current. */
export type LiveStatus =
  | { readonly state: 'connecting' }
  | { readonly state: 'live' }
  | { readonly state: 'reconnecting'; readonly reason: string }
  | { readonly state: 'failed'; readonly reason: string };

// Records kept for the timeline; older ones are dropped from view (the journal keeps them).
const MAX_RECORDS = 5_000;
// Catching up on a long journal delivers thousands of events at once: the view is redrawn at
// most this often, not once per event.
const REDRAW_MS = 100;
// A stream that has not failed this long after it was opened is taken to be open.
const SETTLE_MS = 1_000;

/**
 * The session's journal as it commits, read from `GET .../events` with the typed client (a
 * `fetch` with a streamed body, since EventSource cannot send the Authorization header): first
 * what is already journaled, then each new record live. After a drop the client reconnects with
 * `Last-Event-ID`, so no record is missed or shown twice. `onRecord` is told of every record.
 */
export function useSessionJournal(
  clients: ConsoleClients,
  sessionId: string,
  onRecord: (record: JournalRecord) => void,
): { records: readonly JournalRecord[]; status: LiveStatus } {
  const [records, setRecords] = useState<readonly JournalRecord[]>([]);
  const [status, setStatus] = useState<LiveStatus>({ state: 'connecting' });
  const onRecordRef = useRef(onRecord);
  onRecordRef.current = onRecord;
  useEffect(() => {
    const controller = new AbortController();
    const buffer: JournalRecord[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = (): void => {
      timer = undefined;
      const batch = buffer.splice(0);
      setRecords((previous) => {
        const next = previous.concat(batch);
        return next.length > MAX_RECORDS ? next.slice(next.length - MAX_RECORDS) : next;
      });
    };
    setRecords([]);
    setStatus({ state: 'connecting' });
    // The client says when it is about to reconnect, not when it has: once a reconnect had time
    // to succeed without another failure, the stream counts as live again.
    let settle: ReturnType<typeof setTimeout> | undefined;
    const liveAfter = (ms: number): void => {
      if (settle) clearTimeout(settle);
      settle = setTimeout(() => setStatus({ state: 'live' }), ms);
    };
    const client = clients.live((notice) => {
      if (controller.signal.aborted) return;
      setStatus({ state: 'reconnecting', reason: notice.reason });
      liveAfter(notice.delayMs + SETTLE_MS);
    });
    liveAfter(SETTLE_MS);
    void (async () => {
      try {
        for await (const event of client.events(sessionId, { signal: controller.signal })) {
          if (settle) clearTimeout(settle);
          setStatus((previous) => (previous.state === 'live' ? previous : { state: 'live' }));
          buffer.push(event.record);
          onRecordRef.current(event.record);
          timer ??= setTimeout(flush, REDRAW_MS);
        }
      } catch (error) {
        if (settle) clearTimeout(settle);
        if (!controller.signal.aborted) setStatus({ state: 'failed', reason: problemText(error) });
      }
    })();
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
      if (settle) clearTimeout(settle);
    };
  }, [clients, sessionId]);
  return { records, status };
}
