import type {
  CompletionDelivery,
  ConsumeResults,
  Consumption,
  ClosedSession,
  CreateSessionRequest,
  Health,
  JournalPage,
  JournalQuery,
  JournalRecord,
  LifecyclePublication,
  LifecycleRecord,
  Loop,
  LoopEvent,
  OpenLoopRequest,
  PendingNotification,
  PendingNotifications,
  ProcessCompletionNotification,
  Session,
  SessionCreated,
  SessionToken,
  AdminLoopsPage,
  AdminLoopsQuery,
  AdminPageQuery,
  AdminSessionsPage,
  ClusterNodes,
  NotificationLocations,
  Refusals,
  Whoami,
} from 'process-notifications-contract';
import { LAST_EVENT_ID_HEADER, MAX_CONSUME_BATCH, RETRY_AFTER_HEADER } from 'process-notifications-contract';
import { CompletionTracker, type CompletionUpdate } from './completion-tracker.js';
import { DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES } from './answer-limits.js';
import { readAnswerText } from './answer-body.reader.js';
import { BadAnswerError, type BadAnswerCode } from './bad-answer.error.js';
import { ConsumeBatcher } from './consume-batcher.js';
import { DeliveryBatcher, type Exchanged } from './delivery-batcher.js';
import { NetworkError } from './network.error.js';
import { ProblemError } from './problem.error.js';
import { RetryPolicy, type RetryPolicyOptions } from './retry-policy.js';
import { SseDecoder, type ServerSentEvent } from './sse-decoder.js';
import { fetchTransport, getDefaultTransport, type HttpAnswer, type HttpRequest, type HttpTransport } from './http-transport.js';
import { TimeoutError } from './timeout.error.js';

/** What {@link ProcessNotificationsClientOptions.onRetry} is told before each wait. */
export interface RetryNotice {
  /** The call, e.g. `deliverCompletion`. */
  readonly operation: string;
  /** The attempt that just failed (1 = the first). */
  readonly attempt: number;
  /** What it failed with: a {@link ProblemError} or a {@link NetworkError} (a {@link BadAnswerError} is never retried). */
  readonly error: ProblemError | NetworkError;
  /** One line saying why, e.g. `delivery_stopped (inbox_full): ...` or `cannot reach ... (ECONNREFUSED)`. */
  readonly reason: string;
  /** How long it waits before the next attempt. */
  readonly delayMs: number;
  /** When the next attempt starts. */
  readonly nextAttemptAt: Date;
}

/** Settings of a {@link ProcessNotificationsClient}. */
export interface ProcessNotificationsClientOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:3000`. */
  readonly baseUrl: string | URL;
  /** Bearer token: a session's token, or the admin token. */
  readonly token?: string;
  /** Which answers are retried and how long to wait; a policy or its options. */
  readonly retry?: RetryPolicy | RetryPolicyOptions;
  /** Called once per failed attempt that will be retried, before the wait. */
  readonly onRetry?: (notice: RetryNotice) => void;
  /**
   * A request whose whole answer (connecting, the headers and the whole body) has not come after
   * this long counts as a network error: a server trickling its answer does not hold it longer. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Most bytes of one answer the client reads: past them the call rejects with a
   * {@link BadAnswerError} `answer_too_large` (never retried). A custom `transport` must honour
   * it too (it is passed in each request). @default 67108864 (64 MiB, {@link DEFAULT_MAX_ANSWER_BYTES})
   */
  readonly maxAnswerBytes?: number;
  /**
   * Most bytes of one event of a stream (`events`, `loopEvents`, `completions`,
   * `waitForCompletion`) the client holds: its data lines and any one line. Past them the
   * iteration throws a {@link BadAnswerError} `event_too_large`. @default 1048576 (1 MiB, {@link DEFAULT_MAX_EVENT_BYTES})
   */
  readonly maxEventBytes?: number;
  /** Injected `fetch`: the event streams use it, and the other calls too unless `transport` is given. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /**
   * How the JSON calls are sent. Default: in Node, a keep-alive `node:http` connection pool
   * (`nodeHttpTransport`, from the package's Node entry point); elsewhere, or when `fetch` is
   * given, `fetch`.
   */
  readonly transport?: HttpTransport;
  /**
   * Called before every request (each attempt of a retried call too) with the headers it is about
   * to send, to add the caller's trace context (`traceparent`, `tracestate`): the service then
   * continues that trace. The client itself imports no tracing library; with OpenTelemetry:
   * `propagateTraceContext: (headers) => propagation.inject(context.active(), headers)`.
   */
  readonly propagateTraceContext?: (headers: Record<string, string>) => void;
  /**
   * Send the `deliverCompletion` calls of one session issued close together (in one turn of the
   * event loop, or while the session's previous request is on its way) as one batch request
   * (`POST .../process-completions/batch`), each answered, and retried, as if it had gone alone
   * (a retry may travel in a later batch); a call alone in its turn, or with its own `signal`,
   * `deadlineMs` or `onRetry`, or with `propagateTraceContext` set, goes alone. A server without
   * the batch route gets every delivery alone (the client finds out once). @default true
   */
  readonly coalesceDeliveries?: boolean;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, including a wait between attempts. */
  readonly signal?: AbortSignal;
  /**
   * Retry what the policy says is retryable. Defaults to true for deliveries and the other
   * writes (`deliverCompletion`, `publishLifecycle`, `consume`, `stopLoop`, `closeSession`); false
   * for reads (`health`, `getSession`, `getLoop`, `pendingNotifications`, `journal`), which fail
   * fast, and for `createSession`, `openLoop` and `rotateSessionToken`, which are not idempotent.
   */
  readonly retry?: boolean;
  /**
   * Stop retrying once this many milliseconds have passed since the call began: no attempt
   * starts, and no wait ends, after it; the call then rejects with the last attempt's error (a
   * {@link ProblemError} or a {@link NetworkError}). Unset: retry as long as the policy allows.
   */
  readonly deadlineMs?: number;
  /** Called once per failed attempt of this call that will be retried (besides the client's own). */
  readonly onRetry?: (notice: RetryNotice) => void;
}

/** Options of {@link ProcessNotificationsClient.completions}. */
export interface CompletionsOptions {
  /** Ends the iteration (quietly). */
  readonly signal?: AbortSignal;
  /**
   * Resume: the caller already has every notification journaled up to this sequence (the
   * `sequence` of the last item it took). Only later ones are yielded as `new`; a pending one
   * at or before it is yielded again only for an outcome journaled after it.
   */
  readonly afterSequence?: number;
}

/** Which notification {@link ProcessNotificationsClient.waitForCompletion} waits for. */
export type CompletionTarget = { readonly commandId: string } | { readonly processHandle: string };

/** Options of {@link ProcessNotificationsClient.waitForCompletion}. */
export interface WaitForCompletionOptions {
  /** One deadline for the notification and its outcome, in milliseconds. Unset: no deadline. */
  readonly timeoutMs?: number;
  /** Aborts the wait: it rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Wait for the outcome record too (a supervisor such as `pn-supervise` sends one). False:
   * resolve as soon as the notification is known, with its `outcome` if that came first; for a
   * supervisor that sends no lifecycle records. @default true
   */
  readonly waitForOutcome?: boolean;
}

/** Options of {@link ProcessNotificationsClient.loopEvents}. */
export interface LoopEventsOptions {
  /** Start after this sequence; unset: at the loop's oldest unconsumed notification. */
  readonly after?: number;
  /** Ends the iteration. */
  readonly signal?: AbortSignal;
  /** Reconnect (resuming after the last event) when the stream ends or fails. @default true */
  readonly reconnect?: boolean;
}

/** Options of {@link ProcessNotificationsClient.events}. */
export interface EventsOptions {
  /** Resume after this sequence (sent as `Last-Event-ID`). */
  readonly lastEventId?: string | number;
  /** Ends the iteration. */
  readonly signal?: AbortSignal;
  /** Reconnect (resuming after the last event) when the stream ends or fails. @default true */
  readonly reconnect?: boolean;
}

/** One journal record from the event stream; `record` is typed by its `kind`. */
export interface SessionEvent {
  /** The SSE id: the record's sequence. */
  readonly id: string;
  readonly record: JournalRecord;
}

interface RequestSpec {
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: unknown;
  readonly options: CallOptions;
  /** Whether to retry when the caller does not say. */
  readonly retryByDefault: boolean;
  /** Sends one attempt of a POST with this serialized body, where the call does not go alone. */
  readonly attempt?: (body: string) => Promise<Exchanged>;
}

/**
 * What a stream's latest connection got, kept for `waitForCompletion`: at its timeout, "the server
 * did not answer" (no stream open; `failure` is why) is another answer than "no notification came".
 */
interface StreamHealth {
  /** A stream is open now: the server answered its latest connection with 2xx. */
  open: boolean;
  /** Some connection was ever answered with 2xx. */
  opened: boolean;
  /** Why the latest connection failed; cleared once one is open again. */
  failure?: ProblemError | NetworkError;
}

const segment = (value: string): string => encodeURIComponent(value);

// `?a=1&b=2` of the query's defined values, or '' when none.
function queryString(query: object): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  return search.size > 0 ? `?${search}` : '';
}

/** `text` as JSON, or a {@link BadAnswerError} with `code` naming `what` was not JSON. */
function parseJson(text: string, code: BadAnswerCode, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BadAnswerError(code, `${what} is not JSON: ${text.slice(0, 80)}`, { cause: error });
  }
}

/** A response body's chunks, through its reader: not every browser iterates a ReadableStream. */
async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array, void, undefined> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * A typed client of the process notifications REST API (v1). Plain `fetch`, typed by the
 * contract package's wire types, no other dependency. Error answers are thrown as {@link ProblemError}, failures to get an answer
 * (in time) as {@link NetworkError}, answers it cannot take (too large, or not JSON) as
 * {@link BadAnswerError}; what the contract says to retry is retried with the identical
 * request (see {@link RetryPolicy}).
 */
export class ProcessNotificationsClient {
  readonly retryPolicy: RetryPolicy;
  private readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly transport: HttpTransport;
  private readonly requestTimeoutMs: number;
  private readonly maxAnswerBytes: number;
  private readonly maxEventBytes: number;
  // Built once: every JSON call sends one of these two (a copy only when tracing adds to it).
  private readonly jsonHeaders: Record<string, string>;
  private readonly jsonBodyHeaders: Record<string, string>;
  // One per loop (and retry setting) with consumes waiting or on their way.
  private readonly consumeBatchers = new Map<string, ConsumeBatcher>();
  // One per session with deliveries gathering this turn; none once the server was found without the batch route.
  private readonly deliveryBatchers = new Map<string, DeliveryBatcher>();
  private coalesceDeliveries: boolean;

  constructor(private readonly options: ProcessNotificationsClientOptions) {
    this.baseUrl = String(options.baseUrl).replace(/\/+$/, '');
    this.retryPolicy = options.retry instanceof RetryPolicy ? options.retry : new RetryPolicy(options.retry);
    // Called through a wrapper: a browser's fetch throws when called as a method of another object.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.transport = options.transport ?? (options.fetch ? fetchTransport(options.fetch) : getDefaultTransport());
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    this.maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.jsonHeaders = this.headers('application/json');
    this.jsonBodyHeaders = { ...this.jsonHeaders, 'Content-Type': 'application/json' };
    this.coalesceDeliveries = (options.coalesceDeliveries ?? true) && options.propagateTraceContext === undefined;
  }

  /** The same client with another bearer token. */
  withToken(token: string): ProcessNotificationsClient {
    return new ProcessNotificationsClient({ ...this.options, retry: this.retryPolicy, token });
  }

  /** `POST /v1/sessions` (admin token): a new session and its token, shown once. */
  createSession(body: CreateSessionRequest = {}, options: CallOptions = {}): Promise<SessionCreated> {
    return this.send({ operation: 'createSession', method: 'POST', path: '/v1/sessions', body, options, retryByDefault: false });
  }

  /** `GET /v1/sessions/:sid`. A read: fails fast unless `retry` is passed. */
  getSession(sessionId: string, options: CallOptions = {}): Promise<Session> {
    return this.get('getSession', `/v1/sessions/${segment(sessionId)}`, options);
  }

  /**
   * `POST /v1/sessions/:sid/token` (the admin token or the session's own): a new token for the
   * session, shown once; the old one answers 401 `unauthorized` from now on. Not retried unless
   * `retry` is passed: an answer lost on the way would leave a token nobody has. A client holding
   * the old token goes on with `withToken(answer.token)`.
   */
  rotateSessionToken(sessionId: string, options: CallOptions = {}): Promise<SessionToken> {
    return this.send({
      operation: 'rotateSessionToken',
      method: 'POST',
      path: `/v1/sessions/${segment(sessionId)}/token`,
      body: {},
      options,
      retryByDefault: false,
    });
  }

  /**
   * `POST /v1/sessions/:sid/close` (the admin token or the session's own): its tokens answer 401
   * from now on, its writes 409 `session_closed` (final: never retried), and the admin token still
   * reads it. Idempotent, so retried like the other writes: every close answers the same `closed_at`.
   */
  closeSession(sessionId: string, options: CallOptions = {}): Promise<ClosedSession> {
    return this.post('closeSession', `/v1/sessions/${segment(sessionId)}/close`, {}, options);
  }

  /** `POST /v1/sessions/:sid/loops`: opens a loop (native unless told otherwise). */
  openLoop(sessionId: string, body: OpenLoopRequest = {}, options: CallOptions = {}): Promise<Loop> {
    return this.send({
      operation: 'openLoop',
      method: 'POST',
      path: `/v1/sessions/${segment(sessionId)}/loops`,
      body,
      options,
      retryByDefault: false,
    });
  }

  /** `GET /v1/sessions/:sid/loops/:lid`. A read: fails fast unless `retry` is passed. */
  getLoop(sessionId: string, loopId: string, options: CallOptions = {}): Promise<Loop> {
    return this.get('getLoop', `${this.loopPath(sessionId, loopId)}`, options);
  }

  /** `POST /v1/sessions/:sid/loops/:lid/stop`: later deliveries answer stopped. */
  stopLoop(sessionId: string, loopId: string, options: CallOptions = {}): Promise<Loop> {
    return this.post('stopLoop', `${this.loopPath(sessionId, loopId)}/stop`, {}, options);
  }

  /**
   * `POST /v1/sessions/:sid/process-completions`: resolves when the loop answered `accepted`
   * or `duplicate`. Retried with the identical body while the contract says so; a
   * `delivery_stopped` with cause `loop_stopped` is thrown (it is journaled, and final).
   */
  deliverCompletion(notification: ProcessCompletionNotification, options: CallOptions = {}): Promise<CompletionDelivery> {
    const path = `/v1/sessions/${segment(notification.session_id)}/process-completions`;
    // Read once, as the body is serialized once: every attempt names the same notification.
    const commandId = notification.command_id;
    const alone =
      !this.coalesceDeliveries || options.signal !== undefined || options.onRetry !== undefined || options.deadlineMs !== undefined;
    if (alone) return this.post('deliverCompletion', path, notification, options);
    return this.send({
      operation: 'deliverCompletion',
      method: 'POST',
      path,
      body: notification,
      options,
      retryByDefault: true,
      // Each attempt, retries included, joins its turn's batch while the server has the batch route.
      attempt: (body) => (this.coalesceDeliveries ? this.deliveryBatcher(path).exchange(body, commandId) : this.postJson(path, body)),
    });
  }

  // One attempt of a JSON POST of a serialized body, with no caller signal (what the batcher sends).
  private postJson(path: string, body: string): Promise<Exchanged> {
    const request = { method: 'POST', url: `${this.baseUrl}${path}`, headers: this.jsonBodyHeaders, body } as const;
    return this.exchange({ ...request, timeoutMs: this.requestTimeoutMs, maxAnswerBytes: this.maxAnswerBytes });
  }

  // The batcher of the deliveries to `path` (one session's) gathering this turn.
  private deliveryBatcher(path: string): DeliveryBatcher {
    let batcher = this.deliveryBatchers.get(path);
    if (!batcher) {
      const created = new DeliveryBatcher(
        {
          one: (body) => this.postJson(path, body),
          batch: (body) => this.postJson(`${path}/batch`, body),
          unsupported: () => (this.coalesceDeliveries = false),
          batchSupported: () => this.coalesceDeliveries,
        },
        `${this.baseUrl}${path}/batch`,
        () => {
          if (this.deliveryBatchers.get(path) === created) this.deliveryBatchers.delete(path);
        },
      );
      batcher = created;
      this.deliveryBatchers.set(path, batcher);
    }
    return batcher;
  }

  /** `POST /v1/sessions/:sid/process-lifecycle`: journals a lifecycle record, idempotent by `event_id`. */
  publishLifecycle(record: LifecycleRecord, options: CallOptions = {}): Promise<LifecyclePublication> {
    return this.post('publishLifecycle', `/v1/sessions/${segment(record.session_id)}/process-lifecycle`, record, options);
  }

  /**
   * `GET /v1/sessions/:sid/loops/:lid/process-notifications`: the pending set, in acceptance
   * order, each with its `outcome`. A read: fails fast unless `retry` is passed.
   */
  pendingNotifications(sessionId: string, loopId: string, options: CallOptions = {}): Promise<PendingNotifications> {
    return this.get('pendingNotifications', `${this.loopPath(sessionId, loopId)}/process-notifications`, options);
  }

  /**
   * Consumes a notification of the loop: frees its place in the pending set (one the loop refused
   * but journaled, `inbox_full` or stopped, is consumed too). Consumes of one loop
   * issued close together (in the same turn of the event loop, or while the previous batch is on
   * its way) travel as one {@link consumeMany} request, each answered as if alone: `{consumed,
   * sequence}`, or a {@link ProblemError} `not_found`. A call with its own `signal` or `onRetry`
   * goes alone, as `POST .../process-notifications/:command_id/consume`.
   */
  consume(sessionId: string, loopId: string, commandId: string, options: CallOptions = {}): Promise<Consumption> {
    if (options.signal !== undefined || options.onRetry !== undefined) {
      return this.post('consume', `${this.loopPath(sessionId, loopId)}/process-notifications/${segment(commandId)}/consume`, {}, options);
    }
    // Calls that retry alike share a batch.
    const key = `${sessionId}/${loopId}/${String(options.retry)}/${String(options.deadlineMs)}`;
    let batcher = this.consumeBatchers.get(key);
    if (!batcher) {
      batcher = new ConsumeBatcher(
        async (commandIds) => (await this.consumeMany(sessionId, loopId, commandIds, options)).results,
        () => this.consumeBatchers.delete(key),
      );
      this.consumeBatchers.set(key, batcher);
    }
    return batcher.consume(commandId);
  }

  /**
   * `POST .../process-notifications/consume`: consumes up to 256 notifications of a loop in one
   * request and one journal transaction, with a result per command id in the order given:
   * `{command_id, consumed, sequence}`, or `{command_id, code: 'not_found'}`. Retried whole, like
   * a single consume: what committed answers `consumed: false` on the retry.
   */
  consumeMany(sessionId: string, loopId: string, commandIds: readonly string[], options: CallOptions = {}): Promise<ConsumeResults> {
    if (commandIds.length < 1 || commandIds.length > MAX_CONSUME_BATCH) {
      throw new RangeError(`consumeMany takes 1 to ${MAX_CONSUME_BATCH} command ids, got ${commandIds.length}`);
    }
    return this.post(
      'consumeMany',
      `${this.loopPath(sessionId, loopId)}/process-notifications/consume`,
      { command_ids: commandIds },
      options,
    );
  }

  /**
   * `GET /v1/sessions/:sid/journal?after=N&limit=M`: one page of the session's journal, each
   * record typed by `kind`. A read: fails fast unless `retry` is passed.
   */
  journal(sessionId: string, query: JournalQuery = {}, options: CallOptions = {}): Promise<JournalPage> {
    return this.get('journal', `/v1/sessions/${segment(sessionId)}/journal${queryString(query)}`, options);
  }

  /** `GET /v1/admin/sessions` (admin token): one page of sessions, newest first. */
  adminSessions(query: AdminPageQuery = {}, options: CallOptions = {}): Promise<AdminSessionsPage> {
    return this.get('adminSessions', `/v1/admin/sessions${queryString(query)}`, options);
  }

  /** `GET /v1/admin/loops` (admin token): one page of loops, newest first, filtered. */
  adminLoops(query: AdminLoopsQuery = {}, options: CallOptions = {}): Promise<AdminLoopsPage> {
    return this.get('adminLoops', `/v1/admin/loops${queryString(query)}`, options);
  }

  /** `GET /v1/admin/notifications/:command_id` (admin token): every session that journaled it; 404 `not_found` if none. */
  findNotification(commandId: string, options: CallOptions = {}): Promise<NotificationLocations> {
    return this.get('findNotification', `/v1/admin/notifications/${segment(commandId)}`, options);
  }

  /** `GET /v1/admin/nodes` (admin token): the server processes on the database. */
  nodes(options: CallOptions = {}): Promise<ClusterNodes> {
    return this.get('nodes', '/v1/admin/nodes', options);
  }

  /** `GET /v1/admin/refusals` (admin token): what the nodes refused lately, newest first (kept in the database). */
  refusals(query: { readonly limit?: number } = {}, options: CallOptions = {}): Promise<Refusals> {
    return this.get('refusals', `/v1/admin/refusals${queryString(query)}`, options);
  }

  /** `GET /v1/whoami`: whether the token is the admin's or a session's (any valid token). */
  whoami(options: CallOptions = {}): Promise<Whoami> {
    return this.get('whoami', '/v1/whoami', options);
  }

  /** `GET /healthz`: resolves when the server and its database answer. A read: fails fast unless `retry` is passed. */
  health(options: CallOptions = {}): Promise<Health> {
    return this.get('health', '/healthz', options);
  }

  /**
   * `GET /v1/sessions/:sid/events`: the session's journal records as they commit, as an async
   * iterator. When the stream ends or fails it reconnects with `Last-Event-ID`, so no record is
   * missed or repeated; breaking out of the loop closes the connection.
   */
  async *events(sessionId: string, options: EventsOptions = {}): AsyncGenerator<SessionEvent, void, undefined> {
    const lastEventId = options.lastEventId === undefined ? undefined : String(options.lastEventId);
    for await (const event of this.stream('events', `/v1/sessions/${segment(sessionId)}/events`, lastEventId, options)) {
      yield { id: event.id ?? '', record: parseJson(event.data, 'event_not_json', 'an event of the session stream') as JournalRecord };
    }
  }

  /**
   * `GET /v1/sessions/:sid/loops/:lid/events`: the loop's own stream (issue 37), as an async
   * iterator of {@link LoopEvent}s: its notifications (with their outcome when it was journaled
   * first), the outcomes journaled after them, and consumptions, nothing of other loops. Without
   * `after` it starts at the loop's oldest unconsumed notification. It reconnects with
   * `Last-Event-ID` when the stream ends or fails, so nothing is missed or repeated.
   */
  loopEvents(sessionId: string, loopId: string, options: LoopEventsOptions = {}): AsyncGenerator<LoopEvent, void, undefined> {
    return this.loopEventsOf(sessionId, loopId, options);
  }

  private async *loopEventsOf(
    sessionId: string,
    loopId: string,
    options: LoopEventsOptions,
    health?: StreamHealth,
  ): AsyncGenerator<LoopEvent, void, undefined> {
    const { after } = options;
    if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) {
      throw new RangeError(`after must be a non-negative integer, got ${String(after)}`);
    }
    const path = `${this.loopPath(sessionId, loopId)}/events`;
    for await (const event of this.stream('loopEvents', path, after === undefined ? undefined : String(after), options, health)) {
      const id = Number(event.id);
      const data = parseJson(event.data, 'event_not_json', 'an event of the loop stream');
      if (event.event === 'consumed') yield { id, type: 'consumed', consumed: data as { command_id: string; sequence: number } };
      else if (event.event === 'notification' || event.event === 'outcome') {
        yield { id, type: event.event, notification: data as PendingNotification };
      }
      // Any other event name is a later version's: skipped.
    }
  }

  /**
   * A loop's completions (spec section 14), as an async iterator of `{ notification, update }`:
   * first the notifications pending now (the loop's unconsumed ones), in acceptance order, then
   * each one journaled for the loop later (one refused as `inbox_full` included: it is the
   * loop's work), each once as `update: 'new'`, across reconnects, until `signal` aborts (the
   * iteration then ends quietly). A notification whose outcome record is journaled after it is
   * yielded once more, with its `outcome`, as `update: 'outcome'`. One request for the whole
   * iteration (the loop's stream, {@link loopEvents}), constant work per item.
   */
  completions(sessionId: string, loopId: string, options: CompletionsOptions = {}): AsyncGenerator<CompletionUpdate, void, undefined> {
    return this.completionsOf(sessionId, loopId, options);
  }

  private async *completionsOf(
    sessionId: string,
    loopId: string,
    options: CompletionsOptions,
    health?: StreamHealth,
  ): AsyncGenerator<CompletionUpdate, void, undefined> {
    const { signal, afterSequence } = options;
    if (afterSequence !== undefined && !(Number.isSafeInteger(afterSequence) && afterSequence >= 0)) {
      throw new RangeError(`afterSequence must be a non-negative integer, got ${String(afterSequence)}`);
    }
    const tracker = new CompletionTracker(afterSequence);
    try {
      for await (const event of this.loopEventsOf(sessionId, loopId, { after: afterSequence, signal }, health)) {
        const update = tracker.take(event);
        if (update) yield update;
      }
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
  }

  /**
   * Waits for one notification of the loop, by `commandId` or by `processHandle` (spec section
   * 14), with one deadline for both it and its outcome: resolves with `{ notification }` as soon
   * as the notification and its outcome are known (or, with `waitForOutcome: false`, as soon as
   * the notification is), or at `timeoutMs` with `outcome: null` if only the notification came;
   * rejects with a {@link TimeoutError} when the server answered and no notification came in
   * time, and with the signal's reason when `signal` aborts. When the server did not answer (its
   * stream was not open at the timeout: it could not be reached, or failed, and was being retried
   * as the retry policy says), it rejects with that failure instead: a {@link NetworkError} naming
   * the server, or the last {@link ProblemError} it answered with. A failure the retry policy does
   * not retry (or retries no more) rejects at once.
   */
  async waitForCompletion(
    sessionId: string,
    loopId: string,
    target: CompletionTarget,
    options: WaitForCompletionOptions = {},
  ): Promise<{ notification: PendingNotification }> {
    const { timeoutMs, signal, waitForOutcome = true } = options;
    if (timeoutMs !== undefined && !(timeoutMs >= 0))
      throw new RangeError(`timeoutMs must be a non-negative number, got ${String(timeoutMs)}`);
    const matches =
      'commandId' in target
        ? (n: PendingNotification) => n.command_id === target.commandId.toLowerCase()
        : (n: PendingNotification) => n.process_handle === target.processHandle;
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    let timedOut = false;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop.abort();
          }, timeoutMs);
    let found: PendingNotification | undefined;
    const health: StreamHealth = { open: false, opened: false };
    try {
      for await (const { notification } of this.completionsOf(sessionId, loopId, { signal: stop.signal }, health)) {
        if (!matches(notification)) continue;
        found = notification;
        if (notification.outcome !== null || !waitForOutcome) return { notification };
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
    if (!timedOut) throw signal?.reason ?? new Error('the completions stream ended');
    if (found) return { notification: found };
    const what = 'commandId' in target ? `command_id ${target.commandId}` : `process_handle ${target.processHandle}`;
    // No open stream at the timeout: nothing could have come, so the caller is told why.
    if (!health.open) {
      const failure = health.failure ?? (health.opened ? undefined : new NetworkError(`no answer from ${this.baseUrl}`));
      if (failure instanceof NetworkError) {
        throw new NetworkError(`${failure.message}: waited ${timeoutMs} ms for ${what} in loop ${loopId}`, { cause: failure });
      }
      if (failure) throw failure;
    }
    throw new TimeoutError(`no notification for ${what} in loop ${loopId} within ${timeoutMs} ms`, timeoutMs!);
  }

  /**
   * A server-sent event stream at `path`, reconnecting after the last event id when it ends or
   * fails (the first connection after `lastEventId`, if given), until `signal` aborts.
   */
  private async *stream(
    operation: string,
    path: string,
    firstEventId: string | undefined,
    options: EventsOptions,
    health?: StreamHealth,
  ): AsyncGenerator<ServerSentEvent, void, undefined> {
    let lastEventId = firstEventId;
    const reconnect = options.reconnect ?? true;
    let failures = 0;
    for (;;) {
      const controller = new AbortController();
      const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
      try {
        const response = await this.fetchOnce(path, {
          method: 'GET',
          headers: { ...this.headers('text/event-stream'), ...(lastEventId === undefined ? {} : { [LAST_EVENT_ID_HEADER]: lastEventId }) },
          signal,
        });
        if (!response.ok) throw await this.problemOf(response);
        if (health) Object.assign(health, { open: true, opened: true, failure: undefined });
        const decoder = new SseDecoder(this.maxEventBytes);
        const text = new TextDecoder();
        for await (const chunk of chunksOf(response.body)) {
          for (const event of decoder.push(text.decode(chunk, { stream: true }))) {
            if (event.id !== undefined) lastEventId = event.id;
            failures = 0;
            yield event;
          }
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        // A bad answer (an event past maxEventBytes) is final, as in the JSON calls.
        if (error instanceof BadAnswerError) throw error;
        const failure = error instanceof ProblemError || error instanceof NetworkError ? error : NetworkError.from(error, this.baseUrl);
        if (health) Object.assign(health, { open: false, failure });
        failures++;
        if (!reconnect || !this.retryPolicy.shouldRetry(failure, failures)) throw failure;
        try {
          await this.waitBeforeRetry(operation, failures, failure, options.signal);
        } catch (aborted) {
          // Aborting ends the iteration quietly, also while it waits to reconnect.
          if (options.signal?.aborted) return;
          throw aborted;
        }
        continue;
      } finally {
        controller.abort();
      }
      if (health) health.open = false;
      if (!reconnect || options.signal?.aborted) return;
    }
  }

  private loopPath(sessionId: string, loopId: string): string {
    return `/v1/sessions/${segment(sessionId)}/loops/${segment(loopId)}`;
  }

  private get<T>(operation: string, path: string, options: CallOptions): Promise<T> {
    // A read that cannot get an answer says so at once: the caller decides whether to wait.
    return this.send({ operation, method: 'GET', path, options, retryByDefault: false });
  }

  private post<T>(operation: string, path: string, body: unknown, options: CallOptions): Promise<T> {
    return this.send({ operation, method: 'POST', path, body, options, retryByDefault: true });
  }

  private headers(accept: string): Record<string, string> {
    return { Accept: accept, ...(this.options.token ? { Authorization: `Bearer ${this.options.token}` } : {}) };
  }

  /** One request, retried as the policy says; the body is serialized once, so every attempt is identical. */
  private async send<T>(spec: RequestSpec): Promise<T> {
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers = body === undefined ? this.jsonHeaders : this.jsonBodyHeaders;
    const url = `${this.baseUrl}${spec.path}`;
    const { signal: callerSignal, onRetry, deadlineMs } = spec.options;
    const retry = spec.options.retry ?? spec.retryByDefault;
    const deadline = deadlineMs === undefined ? Infinity : this.retryPolicy.now() + deadlineMs;
    for (let attempt = 1; ; attempt++) {
      try {
        // No attempt outlives the deadline either.
        const timeoutMs =
          deadline === Infinity ? this.requestTimeoutMs : Math.max(1, Math.min(this.requestTimeoutMs, deadline - this.retryPolicy.now()));
        const { answer, text } =
          spec.attempt && body !== undefined
            ? await spec.attempt(body)
            : await this.exchange(
                { method: spec.method, url, headers: this.traced(headers), body, timeoutMs, maxAnswerBytes: this.maxAnswerBytes },
                callerSignal,
              );
        if (answer.status < 200 || answer.status > 299) {
          throw ProblemError.fromResponse(answer.status, text, this.retryPolicy.parseRetryAfter(answer.header(RETRY_AFTER_HEADER)));
        }
        return parseJson(text, 'answer_not_json', `the answer of ${spec.method} ${url}`) as T;
      } catch (error) {
        if (!retry || !this.retryPolicy.shouldRetry(error, attempt)) throw error;
        const failure = error as ProblemError | NetworkError;
        const delayMs = this.retryPolicy.delayMs(attempt, failure);
        if (this.retryPolicy.now() + delayMs >= deadline) throw error;
        await this.waitBeforeRetry(spec.operation, attempt, failure, callerSignal, onRetry, delayMs);
      }
    }
  }

  /**
   * One attempt: the transport's answer and its whole body, within `request.timeoutMs` from start
   * to end (enforced here too, so a transport that only bounds idle time, or none, cannot hold
   * the call longer). A failure to get the answer in time is a {@link NetworkError}, an answer
   * past `maxAnswerBytes` a {@link BadAnswerError}; an abort by the caller is rethrown as is.
   */
  private async exchange(request: Omit<HttpRequest, 'signal'>, callerSignal?: AbortSignal): Promise<{ answer: HttpAnswer; text: string }> {
    const { timeoutMs, maxAnswerBytes = this.maxAnswerBytes, url } = request;
    const expiry = new AbortController();
    const timer = setTimeout(() => expiry.abort(), timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, expiry.signal]) : expiry.signal;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    const exchange = async (): Promise<{ answer: HttpAnswer; text: string }> => {
      const answer = await this.transport({ ...request, signal });
      const text = await answer.text();
      // A transport that does not bound what it reads is caught here at least (each UTF-16
      // unit is one byte or more).
      if (text.length > maxAnswerBytes) throw BadAnswerError.answerTooLarge(url, maxAnswerBytes);
      return { answer, text };
    };
    try {
      return await Promise.race([exchange(), aborted]);
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (error instanceof BadAnswerError) throw error;
      if (expiry.signal.aborted) throw new NetworkError(`no answer from ${this.baseUrl} within ${timeoutMs} ms`, { cause: error });
      throw NetworkError.from(error, this.baseUrl);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort!);
    }
  }

  // The headers with the caller's trace context added, when it asked for that (a copy: the
  // shared headers stay as they are); the shared object itself otherwise.
  private traced(headers: Record<string, string>): Record<string, string> {
    if (!this.options.propagateTraceContext) return headers;
    const copy = { ...headers };
    try {
      this.options.propagateTraceContext(copy);
    } catch {
      // Tracing never fails a call: the request goes out without the trace context.
    }
    return copy;
  }

  /** `fetch`, with a failure to get an answer turned into a {@link NetworkError} (an abort by the caller is rethrown as is). */
  private async fetchOnce(
    path: string,
    init: RequestInit & { headers: Record<string, string> },
    callerSignal?: AbortSignal,
  ): Promise<Response> {
    const headers = { ...init.headers };
    try {
      this.options.propagateTraceContext?.(headers);
    } catch {
      // Tracing never fails a call: the request goes out without the trace context.
    }
    try {
      return await this.fetchFn(`${this.baseUrl}${path}`, { ...init, headers });
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      throw NetworkError.from(error, this.baseUrl);
    }
  }

  private async problemOf(response: Response): Promise<ProblemError> {
    // Bounded as every answer is; an error answer too large to read is judged by its status alone.
    const text = await readAnswerText(response, response.url, this.maxAnswerBytes).catch(() => '');
    return ProblemError.fromResponse(response.status, text, this.retryPolicy.parseRetryAfter(response.headers.get(RETRY_AFTER_HEADER)));
  }

  private async waitBeforeRetry(
    operation: string,
    attempt: number,
    error: ProblemError | NetworkError,
    signal?: AbortSignal,
    onRetry?: (notice: RetryNotice) => void,
    delayMs = this.retryPolicy.delayMs(attempt, error),
  ): Promise<void> {
    const reason =
      error instanceof ProblemError
        ? `${error.status} ${error.code}${error.cause ? ` (${error.cause})` : ''}: ${error.detail}`
        : error.message;
    const notice: RetryNotice = { operation, attempt, error, reason, delayMs, nextAttemptAt: new Date(this.retryPolicy.now() + delayMs) };
    this.options.onRetry?.(notice);
    onRetry?.(notice);
    await this.retryPolicy.sleep(delayMs, signal);
  }
}
