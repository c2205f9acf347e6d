import { randomBytes } from 'node:crypto';
import type { ReceivedSpan } from './otlp-receiver.js';

/** A W3C trace context of a (made-up) calling process: sampled, fresh ids. */
export function newTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

/** True when `ancestor` is `span`'s parent, or its parent's, and so on (within `spans`). */
export function isUnder(span: ReceivedSpan, ancestor: ReceivedSpan, spans: readonly ReceivedSpan[]): boolean {
  const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]));
  for (let parent = span.parentSpanId; parent !== undefined; parent = byId.get(parent)?.parentSpanId) {
    if (parent === ancestor.spanId && span.traceId === ancestor.traceId) return true;
  }
  return false;
}

/** The one span named `name` in `spans`; fails when there is none or several. */
export function only(spans: readonly ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`expected one ${name} span, found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
}
