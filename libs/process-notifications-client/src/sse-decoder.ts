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
 */
export class SseDecoder {
  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  private lastEventId: string | undefined;
  // A chunk that ended in CR may be the first half of a CRLF.
  private pendingCr = false;

  push(text: string): ServerSentEvent[] {
    let chunk = text;
    if (this.pendingCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.pendingCr = false;
    this.buffer += chunk;
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
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventType = value;
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const event = this.eventType || 'message';
    this.data = [];
    this.eventType = '';
    if (data.length === 0) return undefined;
    return { id: this.lastEventId, event, data: data.join('\n') };
  }
}
