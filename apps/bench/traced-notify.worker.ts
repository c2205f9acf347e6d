import 'reflect-metadata';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { parentPort, workerData } from 'node:worker_threads';
import { measure } from './measure.js';
import { withModuleContext } from './module-context.js';
import { benchNotification } from '../../test/support/notification-fixture.js';

// The notify path with an OpenTelemetry SDK recording every span (batched to an exporter that
// drops them), in a thread of its own: once a tracer provider is registered, the library's tracer
// keeps it, so the main thread's rows must never see one.
const { items, warmup } = workerData as { items: number; warmup: number };
const sdk = new NodeSDK({
  traceExporter: { export: (_spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() },
  metricReaders: [],
  logRecordProcessors: [],
  autoDetectResources: false,
});
sdk.start();
const result = await withModuleContext('memory', items + warmup, async (service) => {
  const { sessionId } = await service.openSession();
  const { loopId } = await service.openLoop(sessionId);
  const run = (count: number) => {
    const batch = Array.from({ length: count }, (_, i) => benchNotification(sessionId, loopId, i));
    return measure(count, 1, (i) => service.notifyProcessCompletion(sessionId, batch[i]!));
  };
  await run(warmup);
  return run(items);
});
await sdk.shutdown();
parentPort!.postMessage(result);
