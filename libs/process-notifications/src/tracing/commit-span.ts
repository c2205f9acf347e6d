import { isSpanContextValid, ROOT_CONTEXT, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import { libraryTracer } from './library-tracer.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from './trace-names.js';

/**
 * Runs one journal transaction in a `pn.journal.commit` span linked to the span of every caller
 * whose work it commits, so group commit stays visible: many callers' traces, one batch span.
 * A batch of one traced caller is also that caller's child; a batch of several starts a trace
 * of its own. Without any traced caller (tracing off, a health probe) there is no span at all.
 */
export function inCommitSpan<T extends object>(
  batch: ReadonlyArray<{ readonly caller?: SpanContext }>,
  work: () => Promise<T>,
): Promise<T> {
  const callers = batch.flatMap(({ caller }) => (caller && isSpanContextValid(caller) ? [caller] : []));
  if (callers.length === 0) return work();
  const parent = callers.length === 1 ? trace.setSpanContext(ROOT_CONTEXT, callers[0]!) : ROOT_CONTEXT;
  const options = {
    root: callers.length > 1,
    links: callers.map((caller) => ({ context: caller })),
    attributes: { [SPAN_ATTRIBUTES.batchSize]: batch.length },
  };
  return libraryTracer.startActiveSpan(SPAN_NAMES.journalCommit, options, parent, async (span) => {
    try {
      const result = await work();
      // A transaction that did not commit (its callers are answered with its error, or retried alone).
      if ('error' in result) span.setStatus({ code: SpanStatusCode.ERROR });
      return result;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
