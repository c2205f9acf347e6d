import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link } from './link.js';

/** Rows per page of a list the console holds whole (a loop's pending set, the timeline, refusals). */
export const PAGE_SIZE = 50;

/** One page of `items` and the buttons to turn pages; back to the first page when `resetKey` changes. */
export function usePage<T>(items: readonly T[], resetKey: unknown = undefined): { rows: readonly T[]; pager: ComponentChildren } {
  const [page, setPage] = useState(0);
  useEffect(() => setPage(0), [resetKey]);
  const pages = Math.max(1, Math.ceil(items.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const rows = items.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  const pager =
    pages > 1 ? (
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>
          Previous page
        </button>
        <span>
          Page {current + 1} of {pages} ({items.length} rows)
        </span>
        <button type="button" disabled={current === pages - 1} onClick={() => setPage(current + 1)}>
          Next page
        </button>
      </nav>
    ) : null;
  return { rows, pager };
}

/** The links of a list the API pages with a cursor: each page has an address, so back goes to the previous one. */
export function CursorPager(props: { firstHref: string; nextHref: string | undefined; onFirstPage: boolean }) {
  if (props.onFirstPage && !props.nextHref) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {!props.onFirstPage && <Link href={props.firstHref}>First page</Link>}
      {props.nextHref && <Link href={props.nextHref}>Next page</Link>}
    </nav>
  );
}
