import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { RetryNotice } from 'process-notifications-client';

// A W3C traceparent: version 00, 32 and 16 lower-case hex digits, flags (spec: traceparent header).
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** True when the environment asks for traces to be exported (as the server decides it). */
function exportRequested(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The ids a record's JSON body names (never anything else from it), for span attributes. */
function recordIds(body: unknown): Record<string, string> {
  if (typeof body !== 'string') return {};
  try {
    const record = JSON.parse(body) as Record<string, unknown>;
    const ids: Record<string, string> = {};
    for (const [field, attribute] of [
      ['session_id', 'pn.session_id'],
      ['loop_id', 'pn.loop_id'],
      ['command_id', 'pn.command_id'],
      ['event_id', 'pn.event_id'],
      ['kind', 'pn.kind'],
    ] as const) {
      if (typeof record[field] === 'string') ids[attribute] = record[field];
    }
    return ids;
  } catch {
    return {};
  }
}

/** What the OpenTelemetry SDK gives a traced run. */
interface TracedRun {
  readonly api: typeof import('@opentelemetry/api');
  readonly tracer: Tracer;
  readonly parent: Context;
  readonly shutdown: () => Promise<void>;
}

/**
 * Tracing of one supervised run (spec section 13). When `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `..._TRACES_ENDPOINT`) is set, the OpenTelemetry SDK is loaded and the run is one trace (a
 * child of `TRACEPARENT` when set): a `pn-supervise.run` span, a `pn-supervise.attempt` span per
 * HTTP request (each retry too) whose context the request carries as `traceparent`, and a
 * `pn-supervise.wait` span for every wait between attempts; exported per the standard `OTEL_*`
 * variables, service name `pn-supervise` unless `OTEL_SERVICE_NAME` says otherwise, and flushed
 * by {@link shutdown}. Otherwise no SDK is loaded and a valid `TRACEPARENT` is sent on unchanged.
 * Spans carry ids, statuses and timings only: never the token, a body, the command line or the
 * environment.
 */
export class SupervisorTracing {
  private runSpan?: Span;
  private runContext?: Context;
  private waiting?: Span;

  private constructor(
    private readonly traced: TracedRun | undefined,
    private readonly passOn: { traceparent?: string; tracestate?: string },
  ) {}

  /** Starts the SDK when the environment asks for export; otherwise only passes TRACEPARENT on. */
  static async start(env: NodeJS.ProcessEnv = process.env): Promise<SupervisorTracing> {
    const traceparent = env.TRACEPARENT?.trim().toLowerCase();
    const valid = traceparent !== undefined && TRACEPARENT.test(traceparent);
    const carrier = valid ? { traceparent, ...(env.TRACESTATE ? { tracestate: env.TRACESTATE } : {}) } : {};
    if (!exportRequested(env)) return new SupervisorTracing(undefined, carrier);
    env.OTEL_METRICS_EXPORTER ??= 'none';
    env.OTEL_LOGS_EXPORTER ??= 'none';
    const [api, { NodeSDK, resources }] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/sdk-node')]);
    const named = Boolean(env.OTEL_SERVICE_NAME?.trim()) || /(?:^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
    const sdk = new NodeSDK({
      serviceName: named ? undefined : 'pn-supervise',
      // Not the process detector: its process.command_args would carry the token and the command.
      resource: resources.resourceFromAttributes({
        'process.pid': process.pid,
        'process.runtime.name': 'nodejs',
        'process.runtime.version': process.versions.node,
      }),
      resourceDetectors: [resources.envDetector, resources.hostDetector],
    });
    sdk.start();
    const parent = api.propagation.extract(api.ROOT_CONTEXT, carrier);
    const tracer = api.trace.getTracer('pn-supervise');
    return new SupervisorTracing({ api, tracer, parent, shutdown: () => sdk.shutdown().catch(() => undefined) }, carrier);
  }

  /** Runs the supervisor in the run's span; its result is the exit status, recorded on the span. */
  async run(work: () => Promise<number>): Promise<number> {
    if (!this.traced) return work();
    const { api, tracer, parent } = this.traced;
    this.runSpan = tracer.startSpan('pn-supervise.run', {}, parent);
    this.runContext = api.trace.setSpan(parent, this.runSpan);
    try {
      const status = await api.context.with(this.runContext, work);
      this.runSpan.setAttribute('process.exit.code', status);
      return status;
    } catch (error) {
      this.runSpan.setStatus({ code: api.SpanStatusCode.ERROR });
      throw error;
    } finally {
      this.endWait();
      this.runSpan.end();
    }
  }

  /** Names the session, loop and command of the run on its span. */
  describeRun(ids: { sessionId: string; loopId: string; commandId?: string }): void {
    this.runSpan?.setAttributes({
      'pn.session_id': ids.sessionId,
      'pn.loop_id': ids.loopId,
      ...(ids.commandId === undefined ? {} : { 'pn.command_id': ids.commandId }),
    });
  }

  /** The client's `fetch`: each attempt in a span of its own, which the request carries on. */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (!this.traced || !this.runContext) return globalThis.fetch(input, init);
    const { api, tracer } = this.traced;
    this.endWait();
    const url = new URL(input instanceof Request ? input.url : input);
    const span = tracer.startSpan(
      'pn-supervise.attempt',
      {
        kind: api.SpanKind.CLIENT,
        attributes: { 'http.request.method': init.method ?? 'GET', 'url.path': url.pathname, ...recordIds(init.body) },
      },
      this.runContext,
    );
    const headers = { ...(init.headers as Record<string, string>) };
    api.propagation.inject(api.trace.setSpan(this.runContext, span), headers);
    try {
      const response = await globalThis.fetch(input, { ...init, headers });
      span.setAttribute('http.response.status_code', response.status);
      if (!response.ok) {
        const code = await response
          .clone()
          .json()
          .then((problem: unknown) => (problem as { code?: unknown } | null)?.code)
          .catch(() => undefined);
        if (typeof code === 'string') span.setAttribute('pn.error_code', code);
        span.setStatus({ code: api.SpanStatusCode.ERROR, ...(typeof code === 'string' ? { message: code } : {}) });
      }
      return response;
    } catch (error) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as { code?: string }).code });
      throw error;
    } finally {
      span.end();
    }
  };

  /** The client's `propagateTraceContext`: without the SDK, TRACEPARENT goes on unchanged. */
  readonly propagate = (headers: Record<string, string>): void => {
    if (this.traced) return;
    Object.assign(headers, this.passOn);
  };

  /** The client's `onRetry`: the wait before the next attempt, as a span. */
  readonly retrying = (notice: RetryNotice): void => {
    if (!this.traced || !this.runContext) return;
    this.endWait();
    this.waiting = this.traced.tracer.startSpan(
      'pn-supervise.wait',
      {
        attributes: {
          'pn.operation': notice.operation,
          'pn.attempt': notice.attempt,
          'pn.delay_ms': notice.delayMs,
          ...(typeof (notice.error as { code?: unknown }).code === 'string'
            ? { 'pn.error_code': (notice.error as { code: string }).code }
            : {}),
        },
      },
      this.runContext,
    );
  };

  /** Exports what is still buffered and stops the SDK; never rejects. */
  async shutdown(): Promise<void> {
    await this.traced?.shutdown();
  }

  private endWait(): void {
    this.waiting?.end();
    this.waiting = undefined;
  }
}
