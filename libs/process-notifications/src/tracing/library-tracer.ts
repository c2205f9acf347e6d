import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { IdempotencyCollisionError } from '../errors/idempotency-collision.error.js';
import { ProcessNotificationsError } from '../errors/process-notifications.error.js';
import { SPAN_ATTRIBUTES } from './trace-names.js';

/**
 * The library's tracer. Until an OpenTelemetry SDK is registered (the embedder's choice) it is
 * the API's no-op: spans are not recorded and cost a few allocations.
 */
export const libraryTracer = trace.getTracer('nestjs-process-notifications');

/**
 * Runs `work` in a new active span named `name`, ended when `work` settles; a refusal is
 * recorded on it (see {@link recordRefusal}) and rethrown.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  options: RefusalOptions = {},
): Promise<T> {
  return libraryTracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      recordRefusal(span, error, options);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Which parts of a refusal a span carries. */
export interface RefusalOptions {
  /** Only these dispositions of an error are recorded (default: any). */
  readonly dispositions?: readonly string[];
}

/**
 * A refusal on `span`: the error status, the problem's code as `pn.error_code`, its disposition
 * (where it has one and `options` allow it) and, on a collision, the original's sequence. The
 * status message is the code, never the error's message, which may quote the input.
 */
export function recordRefusal(span: Span, error: unknown, options: RefusalOptions = {}): void {
  if (!(error instanceof ProcessNotificationsError)) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    return;
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
  span.setAttribute(SPAN_ATTRIBUTES.errorCode, error.code);
  if (error.disposition && (options.dispositions?.includes(error.disposition) ?? true)) {
    span.setAttribute(SPAN_ATTRIBUTES.disposition, error.disposition);
  }
  if (error instanceof IdempotencyCollisionError) span.setAttribute(SPAN_ATTRIBUTES.sequence, error.sequence);
}
