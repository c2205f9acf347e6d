import type {
  CompletionDelivery,
  Consumption,
  CreateSessionRequest,
  Health,
  JournalPage,
  JournalQuery,
  JournalRecord,
  LifecyclePublication,
  LifecycleRecord,
  Loop,
  OpenLoopRequest,
  PendingNotifications,
  ProcessCompletionNotification,
  Session,
  SessionCreated,
} from './api.types.js';
import type {
  AdminLoopsPage,
  AdminLoopsQuery,
  AdminPageQuery,
  AdminSessionsPage,
  ClusterNodes,
  NotificationLocations,
  Refusals,
  Whoami,
} from './admin.types.js';
import { NetworkError } from './network.error.js';
import { ProblemError } from './problem.error.js';
import { RetryPolicy, type RetryPolicyOptions } from './retry-policy.js';
import { SseDecoder } from './sse-decoder.js';

/** What {@link ProcessNotificationsClientOptions.onRetry} is told before each wait. */
export interface RetryNotice {
  /** The call, e.g. `deliverCompletion`. */
  readonly operation: string;
  /** The attempt that just failed (1 = the first). */
  readonly attempt: number;
  /** What it failed with: a {@link ProblemError} or a {@link NetworkError}. */
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
  /** A request without an answer after this long counts as a network error. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Injected `fetch`. @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, including a wait between attempts. */
  readonly signal?: AbortSignal;
  /**
   * Retry what the policy says is retryable. Defaults to true, except for `createSession`
   * and `openLoop`, which are not idempotent.
   */
  readonly retry?: boolean;
  /** Called once per failed attempt of this call that will be retried (besides the client's own). */
  readonly onRetry?: (notice: RetryNotice) => void;
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

/** One journal record from the event stream. */
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
}

const segment = (value: string): string => encodeURIComponent(value);

// `?a=1&b=2` of the query's defined values, or '' when none.
function queryString(query: object): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  return search.size > 0 ? `?${search}` : '';
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
 * A typed client of the process notifications REST API (v1). Plain `fetch`, no
 * dependencies. Error answers are thrown as {@link ProblemError}, failures to get an answer
 * as {@link NetworkError}; what the contract says to retry is retried with the identical
 * request (see {@link RetryPolicy}).
 */
export class ProcessNotificationsClient {
  readonly retryPolicy: RetryPolicy;
  private readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly requestTimeoutMs: number;

  constructor(private readonly options: ProcessNotificationsClientOptions) {
    this.baseUrl = String(options.baseUrl).replace(/\/+$/, '');
    this.retryPolicy = options.retry instanceof RetryPolicy ? options.retry : new RetryPolicy(options.retry);
    // Called through a wrapper: a browser's fetch throws when called as a method of another object.
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /** The same client with another bearer token. */
  withToken(token: string): ProcessNotificationsClient {
    return new ProcessNotificationsClient({ ...this.options, retry: this.retryPolicy, token });
  }

  /** `POST /v1/sessions` (admin token): a new session and its token, shown once. */
  createSession(body: CreateSessionRequest = {}, options: CallOptions = {}): Promise<SessionCreated> {
    return this.send({ operation: 'createSession', method: 'POST', path: '/v1/sessions', body, options, retryByDefault: false });
  }

  /** `GET /v1/sessions/:sid`. */
  getSession(sessionId: string, options: CallOptions = {}): Promise<Session> {
    return this.get('getSession', `/v1/sessions/${segment(sessionId)}`, options);
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

  /** `GET /v1/sessions/:sid/loops/:lid`. */
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
    return this.post('deliverCompletion', `/v1/sessions/${segment(notification.session_id)}/process-completions`, notification, options);
  }

  /** `POST /v1/sessions/:sid/process-lifecycle`: journals a lifecycle record, idempotent by `event_id`. */
  publishLifecycle(record: LifecycleRecord, options: CallOptions = {}): Promise<LifecyclePublication> {
    return this.post('publishLifecycle', `/v1/sessions/${segment(record.session_id)}/process-lifecycle`, record, options);
  }

  /** `GET /v1/sessions/:sid/loops/:lid/process-notifications`: the pending set, in acceptance order. */
  pendingNotifications(sessionId: string, loopId: string, options: CallOptions = {}): Promise<PendingNotifications> {
    return this.get('pendingNotifications', `${this.loopPath(sessionId, loopId)}/process-notifications`, options);
  }

  /** `POST .../process-notifications/:command_id/consume`: frees the notification's place. */
  consume(sessionId: string, loopId: string, commandId: string, options: CallOptions = {}): Promise<Consumption> {
    return this.post('consume', `${this.loopPath(sessionId, loopId)}/process-notifications/${segment(commandId)}/consume`, {}, options);
  }

  /** `GET /v1/sessions/:sid/journal?after=N&limit=M`: one page of the session's journal. */
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

  /** `GET /v1/admin/refusals` (admin token): what the answering node refused lately, newest first. */
  refusals(query: { readonly limit?: number } = {}, options: CallOptions = {}): Promise<Refusals> {
    return this.get('refusals', `/v1/admin/refusals${queryString(query)}`, options);
  }

  /** `GET /v1/whoami`: whether the token is the admin's or a session's (any valid token). */
  whoami(options: CallOptions = {}): Promise<Whoami> {
    return this.get('whoami', '/v1/whoami', options);
  }

  /** `GET /healthz`: resolves when the server and its database answer. */
  health(options: CallOptions = {}): Promise<Health> {
    return this.get('health', '/healthz', options);
  }

  /**
   * `GET /v1/sessions/:sid/events`: the session's journal records as they commit, as an async
   * iterator. When the stream ends or fails it reconnects with `Last-Event-ID`, so no record is
   * missed or repeated; breaking out of the loop closes the connection.
   */
  async *events(sessionId: string, options: EventsOptions = {}): AsyncGenerator<SessionEvent, void, undefined> {
    let lastEventId = options.lastEventId === undefined ? undefined : String(options.lastEventId);
    const reconnect = options.reconnect ?? true;
    let failures = 0;
    for (;;) {
      const controller = new AbortController();
      const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
      try {
        const response = await this.fetchOnce(`/v1/sessions/${segment(sessionId)}/events`, {
          method: 'GET',
          headers: { ...this.headers('text/event-stream'), ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
          signal,
        });
        if (!response.ok) throw await this.problemOf(response);
        const decoder = new SseDecoder();
        const text = new TextDecoder();
        for await (const chunk of chunksOf(response.body)) {
          for (const event of decoder.push(text.decode(chunk, { stream: true }))) {
            if (event.id !== undefined) lastEventId = event.id;
            failures = 0;
            yield { id: event.id ?? '', record: JSON.parse(event.data) as JournalRecord };
          }
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        const failure = error instanceof ProblemError || error instanceof NetworkError ? error : NetworkError.from(error, this.baseUrl);
        failures++;
        if (!reconnect || !this.retryPolicy.shouldRetry(failure, failures)) throw failure;
        try {
          await this.waitBeforeRetry('events', failures, failure, options.signal);
        } catch (aborted) {
          // Aborting ends the iteration quietly, also while it waits to reconnect.
          if (options.signal?.aborted) return;
          throw aborted;
        }
        continue;
      } finally {
        controller.abort();
      }
      if (!reconnect || options.signal?.aborted) return;
    }
  }

  private loopPath(sessionId: string, loopId: string): string {
    return `/v1/sessions/${segment(sessionId)}/loops/${segment(loopId)}`;
  }

  private get<T>(operation: string, path: string, options: CallOptions): Promise<T> {
    return this.send({ operation, method: 'GET', path, options, retryByDefault: true });
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
    const headers = { ...this.headers('application/json'), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
    const { signal: callerSignal, onRetry } = spec.options;
    const retry = spec.options.retry ?? spec.retryByDefault;
    for (let attempt = 1; ; attempt++) {
      try {
        const signal = AbortSignal.any([AbortSignal.timeout(this.requestTimeoutMs), ...(callerSignal ? [callerSignal] : [])]);
        const response = await this.fetchOnce(spec.path, { method: spec.method, headers, body, signal }, callerSignal);
        if (!response.ok) throw await this.problemOf(response);
        const text = await response.text().catch((error: unknown) => {
          throw NetworkError.from(error, this.baseUrl);
        });
        return JSON.parse(text) as T;
      } catch (error) {
        if (!retry || !this.retryPolicy.shouldRetry(error, attempt)) throw error;
        await this.waitBeforeRetry(spec.operation, attempt, error as ProblemError | NetworkError, callerSignal, onRetry);
      }
    }
  }

  /** `fetch`, with a failure to get an answer turned into a {@link NetworkError} (an abort by the caller is rethrown as is). */
  private async fetchOnce(path: string, init: RequestInit, callerSignal?: AbortSignal): Promise<Response> {
    try {
      return await this.fetchFn(`${this.baseUrl}${path}`, init);
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      throw NetworkError.from(error, this.baseUrl);
    }
  }

  private async problemOf(response: Response): Promise<ProblemError> {
    const text = await response.text().catch(() => '');
    return ProblemError.fromResponse(response.status, text, this.retryPolicy.parseRetryAfter(response.headers.get('retry-after')));
  }

  private async waitBeforeRetry(
    operation: string,
    attempt: number,
    error: ProblemError | NetworkError,
    signal?: AbortSignal,
    onRetry?: (notice: RetryNotice) => void,
  ): Promise<void> {
    const delayMs = this.retryPolicy.delayMs(attempt, error);
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
