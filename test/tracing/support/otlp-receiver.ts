import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An OTLP attribute value, as the JSON encoding writes it. */
type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number };

/** A span as received, with its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly service: string;
  readonly resource: Record<string, unknown>;
  readonly scope: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { code?: number; message?: string };
  readonly links: ReadonlyArray<{ traceId: string; spanId: string }>;
  readonly events: ReadonlyArray<{ name: string; attributes: Record<string, unknown> }>;
}

interface OtlpKeyValue {
  key: string;
  value: AnyValue;
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value;
}

function flatten(attributes: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/**
 * The test's own OTLP/HTTP receiver on loopback: takes what an exporter POSTs to `/v1/traces`
 * in the JSON encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps every span. Anything
 * else (other signals, protobuf) is answered 200 and counted in `otherRequests`.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every raw body received on /v1/traces, for searching (e.g. for secrets). */
  readonly rawBodies: string[] = [];
  otherRequests = 0;
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (request.url === '/v1/traces' && String(request.headers['content-type']).startsWith('application/json')) {
          receiver.take(body.toString('utf8'));
        } else {
          receiver.otherRequests += 1;
        }
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Environment that makes an OpenTelemetry SDK export here, as JSON, with little delay. */
  get env(): Record<string, string> {
    return { OTEL_EXPORTER_OTLP_ENDPOINT: this.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' };
  }

  /** Resolves once `predicate` holds for the spans received; rejects after `timeoutMs`. */
  async waitFor(predicate: (spans: ReceivedSpan[]) => boolean, what: string, timeoutMs = 10_000): Promise<ReceivedSpan[]> {
    if (predicate(this.spans)) return this.spans;
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate(this.spans)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(this.spans);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        const names = this.spans.map((span) => `${span.service}:${span.name}`).join(', ');
        reject(new Error(`no ${what} within ${timeoutMs} ms; received: ${names || 'nothing'}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private take(text: string): void {
    this.rawBodies.push(text);
    const request = JSON.parse(text) as {
      resourceSpans?: Array<{
        resource?: { attributes?: OtlpKeyValue[] };
        scopeSpans?: Array<{
          scope?: { name?: string };
          spans?: Array<{
            name: string;
            kind: number;
            traceId: string;
            spanId: string;
            parentSpanId?: string;
            attributes?: OtlpKeyValue[];
            status?: { code?: number; message?: string };
            links?: Array<{ traceId: string; spanId: string }>;
            events?: Array<{ name: string; attributes?: OtlpKeyValue[] }>;
          }>;
        }>;
      }>;
    };
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            service: String(resource['service.name']),
            resource,
            scope: scopeSpans.scope?.name ?? '',
            name: span.name,
            kind: span.kind,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            attributes: flatten(span.attributes),
            status: span.status ?? {},
            links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
            events: (span.events ?? []).map((event) => ({ name: event.name, attributes: flatten(event.attributes) })),
          });
        }
      }
    }
    for (const check of [...this.waiters]) check();
  }
}
