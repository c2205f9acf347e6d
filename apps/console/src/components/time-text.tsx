import { useEffect, useState } from 'preact/hooks';

/** `2026-12-01 21:03:59Z`: an instant as operators compare it across machines. */
export function instantText(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** How long ago: `42 s`, `3 min`, `5 h`, `2 d`. */
export function ageText(iso: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - new Date(iso).getTime()) / 1000));
  if (Number.isNaN(seconds)) return '';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/** The clock, ticking every `everyMs`: ages shown on a view stay true while it is open. */
export function useNow(everyMs = 5_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export function Instant(props: { at: string | null | undefined }) {
  if (!props.at) return <span class="none">none</span>;
  return <time dateTime={props.at}>{instantText(props.at)}</time>;
}

export function Age(props: { at: string | null | undefined; now: number }) {
  if (!props.at) return <span class="none">unknown</span>;
  return (
    <time dateTime={props.at} title={instantText(props.at)}>
      {ageText(props.at, props.now)}
    </time>
  );
}

/**
 * How old what a polled view shows is (`Updated 3 s ago, refreshed every 5 s`): the operator sees
 * that it updates by itself, and when it stopped doing so.
 */
export function UpdatedAgo(props: { at: number | undefined; now: number; everyMs: number }) {
  if (props.at === undefined) return null;
  const iso = new Date(props.at).toISOString();
  return (
    <p class="hint updated" role="status" aria-live="off">
      Updated <time dateTime={iso}>{ageText(iso, Math.max(props.now, props.at))}</time> ago, refreshed every {props.everyMs / 1000} s.
    </p>
  );
}
