import { Inject, Injectable, Logger, type NestMiddleware, type OnModuleDestroy } from '@nestjs/common';
import { isCanonicalUuid, ProcessNotificationsService } from 'nestjs-process-notifications';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { SERVER_CONFIG, type ServerConfig } from '../config/server-config.js';
import { MAX_BODY_BYTES } from '../http/read-json-body.pipe.js';
import { BODY_TOO_LARGE, keepBody } from './buffered-body.js';

/** Marks a request one node forwarded to another: it is answered there, never forwarded again. */
export const FORWARDED_HEADER = 'pn-forwarded-by';

// Routes its owner answers (spec section 9): the session, its loops, pending sets, deliveries
// and lifecycle records. Journal pages and event streams are served by any node. In any case
// and with a trailing slash, as the router matches them.
const OWNER_ROUTE = /^\/v1\/sessions\/([^/?#]+)(?:\/(?:loops|process-completions|process-lifecycle)(?:[/?#].*)?|\/)?(?:\?.*)?$/i;

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
 * over once it has expired. Runs before authentication: the owner authenticates what it answers.
 */
@Injectable()
export class OwnerForwardingMiddleware implements NestMiddleware, OnModuleDestroy {
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

  use(request: IncomingMessage, response: ServerResponse, next: () => void): void {
    // SQLite serves one process: no other node owns anything, so nothing is looked up.
    if (!this.service.sharesDatabase) {
      next();
      return;
    }
    this.route(request, response).then(
      (answered) => {
        if (!answered) next();
      },
      (error: unknown) => {
        this.logger.warn(`forwarding failed: ${(error as Error).message}`);
        next();
      },
    );
  }

  // True when the owner's answer was relayed; false to answer here.
  private async route(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const sessionId = OWNER_ROUTE.exec(pathOf(request))?.[1];
    if (!sessionId || request.headers[FORWARDED_HEADER] !== undefined || !isCanonicalUuid(sessionId.toLowerCase())) return false;
    const owner = await this.service.locateOwner(sessionId).catch(() => undefined);
    if (owner?.kind !== 'node' || !owner.url) return false;
    let body: Buffer | typeof BODY_TOO_LARGE;
    try {
      body = await readBody(request);
    } catch {
      // The client went away mid-upload: nobody is left to answer.
      response.destroy();
      return true;
    }
    keepBody(request, body);
    if (body === BODY_TOO_LARGE) return false;
    const answer = await this.forward(request, owner.url, body).catch((error: unknown) => {
      this.warnOnce(owner.nodeId, `node ${owner.nodeId} at ${owner.url} did not answer: ${(error as Error).message}`);
      return undefined;
    });
    if (!answer) return false;
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) response.setHeader(name, value);
    }
    response.statusCode = answer.status;
    response.end(answer.body);
    return true;
  }

  private forward(request: IncomingMessage & { id?: string }, base: string, body: Buffer): Promise<Forwarded> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers[FORWARDED_HEADER] = this.service.nodeId;
    // The owner logs and echoes this node's request id, so both nodes' lines name one request.
    if (request.id !== undefined) headers['x-request-id'] = request.id;
    if (body.length > 0 || request.headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(new URL(pathOf(request), base), {
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

// The path and query as the client sent them: middleware may see `url` with its mount path
// stripped (Fastify's middie keeps the original in `originalUrl`).
function pathOf(request: IncomingMessage & { originalUrl?: string }): string {
  return request.originalUrl ?? request.url ?? '';
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
