import { trace, type Span } from '@opentelemetry/api';
import { Worker } from 'node:worker_threads';
import type { BenchResult, BenchRow } from './bench-row.interface.js';
import { measure } from './measure.js';

/** How many items each row times, and how many go through first to warm up. */
export interface TracingRowOptions {
  readonly items: number;
  readonly warmup: number;
}

// As the library's notify handler nests them: pn.notify around pn.journal.append and pn.dispatch.
const tracer = trace.getTracer('bench');
const ids = { 'pn.session_id': 's', 'pn.loop_id': 'l', 'pn.command_id': 'c' };
function spanned(name: string, work: (span: Span) => Promise<void>): Promise<void> {
  return tracer.startActiveSpan(name, { attributes: ids }, async (span) => {
    try {
      await work(span);
    } finally {
      span.end();
    }
  });
}
const notifySpans = (): Promise<void> =>
  spanned('pn.notify', async (span) => {
    span.setAttributes(ids);
    await spanned('pn.journal.append', async (append) => {
      append.setAttributes({ 'pn.sequence': 1, 'pn.appended': true });
    });
    await spanned('pn.dispatch', async (dispatch) => {
      dispatch.setAttribute('pn.disposition', 'accepted');
    });
    span.setAttributes({ 'pn.sequence': 1, 'pn.disposition': 'accepted' });
  });

/**
 * What tracing costs the notify path (spec section 13). Without an SDK the library's spans are
 * the API's no-ops: the first row times the three spans of one notification alone, against the
 * full path per item ("x floor" is their share of it). The second runs the full path with an SDK
 * recording every span, in a worker thread (see traced-notify.worker.ts), against the same floor.
 */
export function tracingRows({ items, warmup }: TracingRowOptions): BenchRow[] {
  return [
    {
      id: 'notify/memory/c1/noop-spans',
      label: 'its 3 spans alone, no SDK (no-op)',
      database: 'memory',
      concurrency: 1,
      floor: 'notify/memory/c1',
      run: async () => {
        await measure(warmup, 1, notifySpans);
        return measure(items, 1, notifySpans);
      },
    },
    {
      id: 'notify/memory/c1/traced',
      label: 'notify (full path), SDK recording',
      database: 'memory',
      concurrency: 1,
      floor: 'notify/memory/c1',
      run: () =>
        new Promise<BenchResult>((resolve, reject) => {
          const worker = new Worker(new URL('./traced-notify.worker.js', import.meta.url), { workerData: { items, warmup } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    },
  ];
}
