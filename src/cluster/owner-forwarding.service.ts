import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { context, propagation } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isCanonicalUuid, normaliseId, ProcessNotificationsService } from 'nestjs-process-notifications';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { FORWARDED_HEADER, FORWARDING_REQUEST_ID_HEADER } from '../http/node-headers.js';
import { MAX_BODY_BYTES } from '../http/read-json-body.pipe.js';
import { BODY_TOO_LARGE, keepBody } from '../http/buffered-body.js';
import { isOwnerRouted } from './owner-routed.decorator.js';

/**
 * The client's headers that cross to the owner: what the owner's routes read (the token, the
 * body's type and encoding, what the client accepts, where an event stream resumes) and the
 * trace context. Nothing else does: no cookie, no `Host`, no `X-Forwarded-*`, no `X-Request-Id`
 * (the owner makes its own), no header a node sets (FORWARDED_HEADER and
 * FORWARDING_REQUEST_ID_HEADER are set here). `Content-Length` is set from the body read.
 */
const REQUEST_HEADERS = [
  'authorization',
  'content-type',
  'content-encoding',
  'accept',
  'last-event-id',
  'traceparent',
  'tracestate',
  'baggage',
] as const;

/**
 * The owner's headers relayed to the client: what the API's answers carry (spec sections 8 and
 * 9). This node's own headers (`X-Request-Id`, `Cache-Control`, `X-Content-Type-Options`) are
 * sent as they are for any answer; nothing else of the owner's is (no `Set-Cookie`, no
 * connection-level header).
 */
const RESPONSE_HEADERS = ['content-type', 'idempotent-replayed', 'retry-after', 'www-authenticate', 'allow'] as const;

// Leaves room, within the 2 s a client waits at most for an owner that does not answer, for the
// lease check that answers the request here.
const FORWARD_TIMEOUT_MS = 1_500;

type Forwarded = { status: number; headers: IncomingHttpHeaders; body: Buffer };
type Target = { protocol: string; hostname: string; port: string; basePath: string };

/**
 * Several nodes on PostgreSQL: a request for a session that another live node owns is forwarded
 * to it, once, and its answer relayed (status, body and the headers of {@link RESPONSE_HEADERS}).
 * It goes to the owner's advertised URL (`PN_NODE_URL`) with the request's path and query, never
 * anywhere the request names (a request target that is not a path was refused before this hook,
 * by RequestObserver), with the client's headers of {@link REQUEST_HEADERS} only. When the owner does
 * not answer in time the request is answered here, where the library refuses it with
 * `owner_unavailable` (and `Retry-After`) while the owner's lease lasts, or takes the session
 * over once it has expired. Which routes are forwarded is declared beside each route
 * (`@OwnerRouted()`, read here from Fastify's route config); the route's `:sid` names the session.
 * Runs as a Fastify `onRequest` hook (server-app.ts), before authentication: the owner
 * authenticates what it answers. Installed only where the database is shared: SQLite serves one
 * process, where no other node owns anything.
 */
@Injectable()
export class OwnerForwarding implements OnModuleDestroy {
  private readonly logger = new Logger('Forwarding');
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  private readonly timeoutMs: number;
  private readonly warned = new Map<string, number>();
  private readonly targets = new Map<string, Target>();

  constructor(
    private readonly service: ProcessNotificationsService,
    @Inject(SERVER_CONFIG) config: ServerConfig,
  ) {
    // An owner that does not answer in this time is given up on (spec section 9: the request is
    // then answered here, `owner_unavailable` while its lease lasts); an identical retry of a
    // delivery it did commit meanwhile de-duplicates.
    this.timeoutMs = Math.min(config.journalTimeoutMs + 2_000, FORWARD_TIMEOUT_MS);
  }

  /**
   * The `onRequest` hook: relays the owner's answer when another node owns the request's session,
   * and otherwise lets the request go on to its route here. Never rejects.
   */
  async onRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!isOwnerRouted(request.routeOptions.config)) return;
    try {
      await this.route(request, reply);
    } catch (error) {
      this.logger.warn(`forwarding failed: ${(error as Error).message}`);
    }
  }

  private async route(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // The path's session id as it came (this hook runs before routing's pipes), normalised here.
    const sessionId = normaliseId((request.params as { sid?: string } | undefined)?.sid);
    if (!sessionId || request.headers[FORWARDED_HEADER] !== undefined || !isCanonicalUuid(sessionId)) return;
    const owner = await this.service.locateOwner(sessionId).catch(() => undefined);
    if (owner?.kind !== 'node' || !owner.url) return;
    let body: Buffer | typeof BODY_TOO_LARGE;
    try {
      body = await readBody(request.raw);
    } catch {
      // The client went away mid-upload: nobody is left to answer.
      reply.hijack();
      reply.raw.destroy();
      return;
    }
    keepBody(request.raw, body);
    if (body === BODY_TOO_LARGE) return;
    const answer = await this.forward(request, owner.url, body).catch((error: unknown) => {
      this.warnOnce(owner.nodeId, `node ${owner.nodeId} at ${owner.url} did not answer: ${(error as Error).message}`);
      return undefined;
    });
    if (!answer) return;
    // This node's own headers (its request id, no-store, nosniff), then the owner's status, the
    // headers of the closed list, and bytes.
    reply.hijack();
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    for (const name of RESPONSE_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) reply.raw.setHeader(name, value);
    }
    reply.raw.statusCode = answer.status;
    reply.raw.end(answer.body);
  }

  private forward(request: FastifyRequest, base: string, body: Buffer): Promise<Forwarded> {
    const given = request.raw.headers;
    const headers: Record<string, string | string[]> = {};
    for (const name of REQUEST_HEADERS) {
      const value = given[name];
      if (value !== undefined) headers[name] = value;
    }
    headers[FORWARDED_HEADER] = this.service.nodeId;
    // The owner logs this node's request id beside its own, so both nodes' lines name one request.
    headers[FORWARDING_REQUEST_ID_HEADER] = request.id;
    // One trace across both nodes: the owner's spans are children of this node's (while tracing
    // runs; otherwise the client's traceparent was copied above and goes on unchanged).
    propagation.inject(context.active(), headers);
    if (body.length > 0 || given['content-length'] !== undefined) headers['content-length'] = String(body.length);
    const target = this.targetOf(base);
    return new Promise((resolve, reject) => {
      const upstream = httpRequest({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        // The owner's base path and the request's path and query, joined as text: the path is
        // never resolved against the base (a target `//host/...` would name another host).
        path: `${target.basePath}${request.raw.url ?? '/'}`,
        method: request.raw.method,
        headers,
        agent: this.agent,
        timeout: this.timeoutMs,
      });
      upstream.on('timeout', () => upstream.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      upstream.on('error', reject);
      upstream.on('response', (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', reject);
        answer.on('aborted', () => reject(new Error('the answer was cut off')));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
      });
      upstream.end(body);
    });
  }

  // Parsed once per owner URL (nodes advertise theirs, and there are few).
  private targetOf(base: string): Target {
    let target = this.targets.get(base);
    if (!target) {
      const url = new URL(base);
      target = {
        protocol: url.protocol,
        // An IPv6 address without its brackets, as http.request takes it.
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        basePath: url.pathname.replace(/\/+$/, ''),
      };
      if (this.targets.size >= 1024) this.targets.clear();
      this.targets.set(base, target);
    }
    return target;
  }

  // A dead owner fails every request until its lease ends: one line per node and minute.
  private warnOnce(nodeId: string, message: string): void {
    const now = Date.now();
    if ((this.warned.get(nodeId) ?? 0) > now - 60_000) return;
    this.warned.set(nodeId, now);
    this.logger.warn(message);
  }

  onModuleDestroy(): void {
    this.agent.destroy();
  }
}

// The whole body, to send it on and still have it if the owner does not answer.
function readBody(request: IncomingMessage): Promise<Buffer | typeof BODY_TOO_LARGE> {
  if (Number(request.headers['content-length']) > MAX_BODY_BYTES) {
    request.resume();
    return Promise.resolve(BODY_TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    };
    request.on('data', onData);
    request.once('end', () => {
      request.off('data', onData);
      resolve(size > MAX_BODY_BYTES ? BODY_TOO_LARGE : Buffer.concat(chunks));
    });
    request.once('error', reject);
  });
}
