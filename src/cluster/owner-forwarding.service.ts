import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { context, propagation } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isCanonicalUuid, ProcessNotificationsService } from 'nestjs-process-notifications';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { MAX_BODY_BYTES } from '../http/read-json-body.pipe.js';
import { BODY_TOO_LARGE, keepBody } from './buffered-body.js';
import { isOwnerRouted } from './owner-routed.decorator.js';

/** Marks a request one node forwarded to another: it is answered there, never forwarded again. */
export const FORWARDED_HEADER = 'pn-forwarded-by';

// Connection-level headers, which belong to one hop only (RFC 9110 section 7.6.1).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'content-length',
]);

// Leaves room, within the 2 s a client waits at most for an owner that does not answer, for the
// lease check that answers the request here.
const FORWARD_TIMEOUT_MS = 1_500;

type Forwarded = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/**
 * Several nodes on PostgreSQL: a request for a session that another live node owns is forwarded
 * to it, once, and its answer relayed unchanged (status, body and headers). When the owner does
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
    const sessionId = (request.params as { sid?: string } | undefined)?.sid;
    if (!sessionId || request.headers[FORWARDED_HEADER] !== undefined || !isCanonicalUuid(sessionId.toLowerCase())) return;
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
    const answer = await this.forward(request.raw, request.id, owner.url, body).catch((error: unknown) => {
      this.warnOnce(owner.nodeId, `node ${owner.nodeId} at ${owner.url} did not answer: ${(error as Error).message}`);
      return undefined;
    });
    if (!answer) return;
    // Relayed as it came: the owner's status, headers (its own one-hop headers aside) and bytes.
    reply.hijack();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) reply.raw.setHeader(name, value);
    }
    reply.raw.statusCode = answer.status;
    reply.raw.end(answer.body);
  }

  private forward(request: IncomingMessage, requestId: string, base: string, body: Buffer): Promise<Forwarded> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers[FORWARDED_HEADER] = this.service.nodeId;
    // The owner logs and echoes this node's request id, so both nodes' lines name one request.
    headers['x-request-id'] = requestId;
    // One trace across both nodes: the owner's spans are children of this node's (while tracing
    // runs; otherwise the client's traceparent was copied above and goes on unchanged).
    propagation.inject(context.active(), headers);
    if (body.length > 0 || request.headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(new URL(request.url ?? '/', base), {
        method: request.method,
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
