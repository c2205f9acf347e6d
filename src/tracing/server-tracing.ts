import { IncomingMessage } from 'node:http';
import { register } from 'node:module';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { NodeSDK, resources } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { rememberRequestTrace } from './request-trace.js';
import { serviceNameDefault } from './tracing-requested.js';

/** The running SDK, as the entry point needs it. */
export interface ServerTracing {
  /** Exports the spans still buffered, then stops the SDK; never rejects. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry Node SDK for the server, configured by the standard `OTEL_*`
 * variables (endpoint, `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` or `http/json`, headers,
 * sampler, propagators, resource attributes), with `process-notifications` as the service name
 * unless one is given. Only traces are exported unless `OTEL_METRICS_EXPORTER` or
 * `OTEL_LOGS_EXPORTER` say otherwise: the server's metrics are its Prometheus endpoint.
 *
 * Must run before Nest, Fastify, pg or pino is imported: the instrumentations patch them as
 * they load (CommonJS through require, ESM through the import-in-the-middle loader hook
 * registered here).
 */
export async function startServerTracing(env: NodeJS.ProcessEnv = process.env): Promise<ServerTracing> {
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  // The loader hook wraps only the modules an instrumentation asks for, not every module.
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const sdk = new NodeSDK({
    serviceName: serviceNameDefault(env, 'process-notifications'),
    // Not the process detector: its process.command_args and process.command are a command line.
    resource: resources.resourceFromAttributes({
      'process.pid': process.pid,
      'process.runtime.name': 'nodejs',
      'process.runtime.version': process.versions.node,
    }),
    resourceDetectors: [resources.envDetector, resources.hostDetector],
    instrumentations: [
      // Headers (tokens) and bodies (payloads) are never recorded: the defaults record neither.
      new HttpInstrumentation({
        // The request log names the server span of each request (`trace_id`, `span_id`).
        requestHook: (span, request) => {
          if (request instanceof IncomingMessage) rememberRequestTrace(request, span.spanContext().traceId, span.spanContext().spanId);
        },
      }),
      // Fastify's own (Nest 12 is past what the Nest instrumentation supports): the request and
      // its route, on every Fastify instance as it is created; not a span per hook. Exceptions are
      // not recorded: their messages may quote the input.
      new FastifyOtelInstrumentation({ registerOnInitialization: true, recordExceptions: false, instrumentHooks: false }),
      new PgInstrumentation(),
      new PinoInstrumentation(),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  return {
    shutdown: () => sdk.shutdown().catch(() => undefined),
  };
}
