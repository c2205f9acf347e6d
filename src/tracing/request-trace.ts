import type { IncomingMessage } from 'node:http';

/** The ids of a request's server span, as they appear in `traceparent` (lower-case hex). */
export interface RequestTrace {
  readonly trace_id: string;
  readonly span_id: string;
}

// Filled by the HTTP instrumentation's request hook (server-tracing.ts), so only while the SDK
// runs; free of any OpenTelemetry import, so the request log can read it either way.
const traces = new WeakMap<IncomingMessage, RequestTrace>();

/** Remembers the server span of `request` (called as the HTTP instrumentation starts it). */
export function rememberRequestTrace(request: IncomingMessage, traceId: string, spanId: string): void {
  traces.set(request, { trace_id: traceId, span_id: spanId });
}

/** `trace_id` and `span_id` of the request's server span, or nothing when it has none. */
export function requestTraceOf(request: IncomingMessage): RequestTrace | Record<string, never> {
  return traces.get(request) ?? {};
}
