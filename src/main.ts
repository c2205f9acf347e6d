/*
 * The server's entry point. When OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set,
 * the OpenTelemetry SDK starts first, so that it patches http, Fastify, pg and pino before anything
 * imports them; otherwise no SDK module is loaded at all. Only then is the server loaded.
 */
import { tracingRequested } from './tracing/tracing-requested.js';

const tracing = tracingRequested(process.env) ? await (await import('./tracing/server-tracing.js')).startServerTracing() : undefined;
const { startServer } = await import('./start-server.js');
await startServer({ beforeExit: tracing?.shutdown });
