import { Readable } from 'node:stream';
import type { JournalPageDto } from './dto/journal-page.dto.js';

// Records serialized per chunk: a fraction of a millisecond of the event loop each.
const CHUNK = 20;

// The chunk being serialized now, of any page: the next one waits for it, then for a new turn.
let current: Promise<void> = Promise.resolve();

// One chunk at a time across all pages, each in an event loop turn of its own (setImmediate), so
// that however many pages are being sent, other requests' I/O gets in between two chunks.
function takeTurn(): Promise<() => void> {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const previous = current;
  current = done;
  return previous.then(() => new Promise<() => void>((resolve) => setImmediate(() => resolve(release))));
}

/**
 * A journal page as a JSON body, produced in chunks of {@link CHUNK} records that take turns with
 * every other page's: `JSON.stringify` of a 1,000-record page at once holds the event loop for
 * milliseconds, and a session's many readers would make every other request (a delivery of
 * another session) wait behind all of their pages. The bytes parse to exactly what
 * `JSON.stringify(page)` would.
 */
export function journalPageBody(page: JournalPageDto): Readable {
  return Readable.from(chunks(page), { objectMode: false });
}

async function* chunks(page: JournalPageDto): AsyncGenerator<string> {
  const { records, ...rest } = page;
  let start = 0;
  do {
    const release = await takeTurn();
    let json: string;
    try {
      json = JSON.stringify(records.slice(start, start + CHUNK)).slice(1, -1);
    } finally {
      release();
    }
    // The array's brackets are written once: the first chunk opens the body and the array.
    yield start === 0 ? `{"records":[${json}` : `,${json}`;
    start += CHUNK;
  } while (start < records.length);
  yield `],${JSON.stringify(rest).slice(1)}`;
}
