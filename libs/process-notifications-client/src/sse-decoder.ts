import { DEFAULT_MAX_EVENT_BYTES, utf8Length } from './answer-limits.js';
import { BadAnswerError } from './bad-answer.error.js';

/** One dispatched server-sent event. */
export interface ServerSentEvent {
  /** The last event id seen on the stream (`id:` field), as the SSE standard keeps it. */
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * Incremental `text/event-stream` parser (the WHATWG event stream interpretation): feed it
 * decoded text as it arrives, it returns the events completed so far.
 *
 * It holds at most `maxEventBytes` (UTF-8) of one event: the data lines of the event being read
 * and the line not ended yet. Past that, `push` throws a {@link BadAnswerError}
 * `event_too_large`, so a stream that never ends a line or an event cannot exhaust memory.
 */
export class SseDecoder {
  private buffer = '';
  // UTF-8 bytes of `buffer`, and of the data lines held (each with its line end).
  private bufferBytes = 0;
  private dataBytes = 0;
  private data: string[] = [];
  private eventType = '';
  private lastEventId: string | undefined;
  // A chunk that ended in CR may be the first half of a CRLF.
  private pendingCr = false;

  constructor(
    /** Most bytes of one event it holds. @default DEFAULT_MAX_EVENT_BYTES */
    readonly maxEventBytes: number = DEFAULT_MAX_EVENT_BYTES,
  ) {}

  /** The events `text` completes; throws a {@link BadAnswerError} `event_too_large` past `maxEventBytes`. */
  push(text: string): ServerSentEvent[] {
    let chunk = text;
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = false;
    this.buffer += chunk;
    this.bufferBytes += utf8Length(chunk);
    const events: ServerSentEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end could still become CRLF: wait for the next chunk.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) {
        this.pendingCr = true;
      }
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.bufferBytes -= utf8Length(line) + match[0].length;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.check();
    return events;
  }

  private check(): void {
    if (this.bufferBytes + this.dataBytes > this.maxEventBytes) {
      // Nothing more of this stream is read: what it held goes.
      this.buffer = '';
      this.data = [];
      this.bufferBytes = this.dataBytes = 0;
      throw BadAnswerError.eventTooLarge(this.maxEventBytes);
    }
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.dataBytes += utf8Length(value) + 1;
      // The rest of the chunk is not this event's yet: the line not ended is checked at the end.
      if (this.dataBytes > this.maxEventBytes) this.check();
    } else if (field === 'event') this.eventType = value;
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.dataBytes = 0;
    this.eventType = '';
    if (data.length === 0) return undefined;
    return { id: this.lastEventId, event, data: data.join('\n') };
  }
}
