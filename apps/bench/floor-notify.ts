import { isCanonicalUuid, isTerminalPair, PROCESS_HANDLE_PATTERN } from 'nestjs-process-notifications';
import type { LoopEngine, LoopState, SuccessDisposition } from 'process-notifications-contract';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { problem } from '../../src/http/problem-types.js';
import { parseStrictJson } from '../../src/http/strict-json.js';
import { isJsonContentType, MAX_BODY_BYTES } from '../../src/http/json-media-type.js';

/*
 * The framework-free floor of the notify route (issue #12): the work the contract asks of
 * `POST /v1/sessions/:sid/process-completions` (spec sections 2-4 and 8) done with node:http and
 * a plain driver, nothing else. Same order of checks as the app: bearer token (SHA-256 lookup),
 * strict JSON body (16 KiB, UTF-8, no duplicate keys), closed-schema validation, owner, session,
 * loop and engine, then an idempotent journal append in one transaction per request (SHA-256
 * fingerprint of the canonical payload), then the loop's bounded pending set. The stores
 * (better-sqlite3, pg) live in the worker scripts; this file is the HTTP side both share.
 */

/** What an append found: a new or an identical record (its sequence), or another payload under the same id. */
export type AppendOutcome = { readonly sequence: number; readonly appended: boolean } | { readonly collision: number };

/** One journal append, exactly as the app's journal writer persists it. */
export interface FloorAppend {
  readonly sessionId: string;
  readonly loopId: string;
  readonly commandId: string;
  readonly fingerprint: string;
  readonly payload: string;
  readonly createdAt: string;
}

/** The database side of a floor server; each call is one transaction. */
export interface FloorStore {
  addSession(sessionId: string, tokenHash: string, createdAt: string): void | Promise<void>;
  addLoop(sessionId: string, loopId: string, engine: LoopEngine, createdAt: string): void | Promise<void>;
  /** SELECT the (session, command id) record, INSERT when there is none, in one transaction. */
  append(entry: FloorAppend): AppendOutcome | Promise<AppendOutcome>;
}

/** What the floor worker scripts read from `workerData`. */
export interface FloorConfig {
  readonly adminToken: string;
  /** Pending set capacity of each loop. */
  readonly capacity: number;
}

interface Loop {
  readonly loopId: string;
  readonly engine: LoopEngine;
  readonly state: LoopState;
  /** The pending set: insertion-ordered, keyed by command id. */
  readonly pending: Map<string, Pending>;
}

interface Pending {
  readonly commandId: string;
  readonly processHandle: string;
  readonly state: string;
  readonly reason: string;
  readonly sequence: number;
}

/** A validated notification, UUIDs lower-cased. */
interface Notification {
  readonly command_id: string;
  readonly session_id: string;
  readonly loop_id: string;
  readonly process_handle: string;
  readonly state: string;
  readonly reason: string;
}

const FIELDS = ['command_id', 'session_id', 'loop_id', 'process_handle', 'state', 'reason'] as const;
const UUID_FIELDS = ['command_id', 'session_id', 'loop_id'] as const;
const PROCESS_HANDLE = new RegExp(PROCESS_HANDLE_PATTERN);
const BEARER = /^Bearer +([^\s]+) *$/i;
const NOTIFY_PATH = /^\/v1\/sessions\/([^/]+)\/process-completions$/;
const LOOPS_PATH = /^\/v1\/sessions\/([^/]+)\/loops$/;
const RETRY_AFTER_INBOX_FULL = '1';
const RETRY_AFTER_LOOP_STOPPED = '60';

/** A refusal: the problem `code`, its detail and extension members. */
class Refusal {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {}
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/** The field the contract names for the first thing wrong with `input`, or the notification. */
export function validateNotification(input: unknown): Notification | { field: string } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return { field: 'command_id' };
  const record = input as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(FIELDS as readonly string[]).includes(key)) return { field: key };
  }
  for (const field of UUID_FIELDS) if (!isCanonicalUuid(record[field])) return { field };
  const handle = record.process_handle;
  if (typeof handle !== 'string' || !PROCESS_HANDLE.test(handle)) return { field: 'process_handle' };
  if (!isTerminalPair(record.state, record.reason)) return { field: 'state_reason' };
  return {
    command_id: (record.command_id as string).toLowerCase(),
    session_id: (record.session_id as string).toLowerCase(),
    loop_id: (record.loop_id as string).toLowerCase(),
    process_handle: handle,
    state: record.state as string,
    reason: record.reason as string,
  };
}

/** The body as parsed strict JSON (undefined when empty), with the app's limits and refusals. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const tooLarge = (): Refusal => new Refusal('payload_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);
  if (Number(request.headers['content-length']) > MAX_BODY_BYTES) {
    request.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Keep draining past the limit, so the client still reads the 413.
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw tooLarge();
  if (size === 0) return undefined;
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (!isJsonContentType(request.headers['content-type']) || (encoding && encoding !== 'identity')) {
    throw new Refusal('unsupported_media_type', 'The body must be application/json in UTF-8, not encoded.');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  } catch {
    throw new Refusal('invalid_json', 'The body is not valid UTF-8.');
  }
  try {
    return parseStrictJson(text);
  } catch (error) {
    throw new Refusal('invalid_json', `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  response.end(json);
}

function refuse(response: ServerResponse, refusal: Refusal): void {
  const body = { ...problem(refusal.code, refusal.detail), ...refusal.extensions };
  const json = JSON.stringify(body);
  const headers: Record<string, string | number> = { ...refusal.headers };
  if (refusal.code === 'unauthorized') headers['www-authenticate'] = 'Bearer';
  response.writeHead(body.status, { ...headers, 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(json) });
  response.end(json);
}

/**
 * A node:http server answering the notify route like the contract, plus the two set-up routes
 * the bench and the test need (`POST /v1/sessions` with the admin token, `POST .../loops`).
 * Sessions, tokens and loops are held in memory (as the app caches them) and written through
 * `store` when created.
 */
export function floorServer({ adminToken, capacity }: FloorConfig, store: FloorStore): Server {
  const adminDigest = sha256(adminToken);
  const sessionsByTokenHash = new Map<string, string>();
  const loops = new Map<string, Map<string, Loop>>();

  /** The session the bearer token opens for `sid` ('admin' for the admin token), or a refusal. */
  const authenticate = (request: IncomingMessage, sid: string | undefined): string => {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (!token) throw new Refusal('unauthorized', 'A bearer token is required.');
    const digest = sha256(token);
    if (timingSafeEqual(digest, adminDigest)) return 'admin';
    const sessionId = sessionsByTokenHash.get(digest.toString('hex'));
    if (!sessionId) throw new Refusal('unauthorized', 'Unknown bearer token.');
    if (sid === undefined) throw new Refusal('forbidden', 'Only the admin token may do this.');
    if (sid.toLowerCase() !== sessionId) throw new Refusal('forbidden', 'This token opens another session.');
    return sessionId;
  };

  const sessionOf = (sid: string): Map<string, Loop> => {
    if (!isCanonicalUuid(sid)) throw new Refusal('invalid_field', 'session_id must be a canonical, non-nil UUID', { field: 'session_id' });
    const session = loops.get(sid.toLowerCase());
    if (!session) throw new Refusal('session_not_found', `Session ${sid} does not exist.`);
    return session;
  };

  async function notify(request: IncomingMessage, response: ServerResponse, sid: string): Promise<void> {
    authenticate(request, sid);
    if (!isCanonicalUuid(sid)) throw new Refusal('invalid_field', 'session_id must be a canonical, non-nil UUID', { field: 'session_id' });
    const body = await readJson(request);
    const notification = validateNotification(body);
    if ('field' in notification) {
      throw new Refusal('invalid_field', `${notification.field} is missing or invalid`, { field: notification.field });
    }
    const caller = sid.toLowerCase();
    if (notification.session_id !== caller) {
      throw new Refusal('owner_mismatch', `The notification is for session ${notification.session_id}, not ${caller}.`);
    }
    const loop = sessionOf(caller).get(notification.loop_id);
    if (!loop) throw new Refusal('loop_not_found', `Loop ${notification.loop_id} does not exist.`, { disposition: 'stopped' });
    if (loop.engine !== 'native') {
      throw new Refusal('unsupported_engine', `Loop ${loop.loopId} is ${loop.engine}.`, { disposition: 'stopped' });
    }
    // The canonical payload: the six fields in schema order, so an identical retry is byte-identical.
    const payload = JSON.stringify(notification);
    let outcome: AppendOutcome;
    try {
      outcome = await store.append({
        sessionId: caller,
        loopId: notification.loop_id,
        commandId: notification.command_id,
        fingerprint: createHash('sha256').update(`process_notification\n${payload}`).digest('hex'),
        payload,
        createdAt: new Date().toISOString(),
      });
    } catch (error) {
      console.error(error);
      throw new Refusal('journal_unavailable', 'The journal is unavailable; nothing was dispatched.', {}, { 'retry-after': '1' });
    }
    if ('collision' in outcome) {
      throw new Refusal('idempotency_collision', `command_id ${notification.command_id} was journaled with another payload.`, {
        disposition: 'collision',
        sequence: outcome.collision,
      });
    }
    // Journaled: now the loop's pending set (spec section 4).
    const replayed: Record<string, string> = outcome.appended ? {} : { 'idempotent-replayed': 'true' };
    let disposition: SuccessDisposition;
    if (loop.pending.has(notification.command_id)) disposition = 'duplicate';
    else if (loop.state === 'stopped' || loop.pending.size >= capacity) {
      const cause = loop.state === 'stopped' ? 'loop_stopped' : 'inbox_full';
      throw new Refusal(
        'delivery_stopped',
        `Loop ${loop.loopId} answered stopped (${cause}).`,
        { disposition: 'stopped', cause, loop_id: loop.loopId },
        { 'retry-after': cause === 'inbox_full' ? RETRY_AFTER_INBOX_FULL : RETRY_AFTER_LOOP_STOPPED, ...replayed },
      );
    } else {
      loop.pending.set(notification.command_id, {
        commandId: notification.command_id,
        processHandle: notification.process_handle,
        state: notification.state,
        reason: notification.reason,
        sequence: outcome.sequence,
      });
      disposition = 'accepted';
    }
    send(
      response,
      disposition === 'accepted' ? 202 : 200,
      { disposition, command_id: notification.command_id, sequence: outcome.sequence, appended: outcome.appended },
      replayed,
    );
  }

  async function openSession(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (authenticate(request, undefined) !== 'admin') throw new Refusal('forbidden', 'Only the admin token may do this.');
    const body = ((await readJson(request)) ?? {}) as { session_id?: unknown };
    const sessionId = body.session_id === undefined ? randomUUID() : body.session_id;
    if (!isCanonicalUuid(sessionId))
      throw new Refusal('invalid_field', 'session_id must be a canonical, non-nil UUID', { field: 'session_id' });
    const id = sessionId.toLowerCase();
    if (loops.has(id)) throw new Refusal('already_exists', `Session ${id} exists.`);
    const token = randomBytes(32).toString('base64url');
    const tokenHash = sha256(token).toString('hex');
    loops.set(id, new Map());
    await store.addSession(id, tokenHash, new Date().toISOString());
    sessionsByTokenHash.set(tokenHash, id);
    send(response, 201, { session_id: id, token });
  }

  async function openLoop(request: IncomingMessage, response: ServerResponse, sid: string): Promise<void> {
    authenticate(request, sid);
    const session = sessionOf(sid);
    const body = ((await readJson(request)) ?? {}) as { engine?: unknown; loop_id?: unknown };
    const engine = body.engine ?? 'native';
    if (engine !== 'native' && engine !== 'foreign') throw new Refusal('invalid_field', 'engine is native or foreign', { field: 'engine' });
    const loopId = body.loop_id === undefined ? randomUUID() : body.loop_id;
    if (!isCanonicalUuid(loopId)) throw new Refusal('invalid_field', 'loop_id must be a canonical, non-nil UUID', { field: 'loop_id' });
    const id = loopId.toLowerCase();
    if (session.has(id)) throw new Refusal('already_exists', `Loop ${id} exists.`);
    const loop: Loop = { loopId: id, engine, state: 'running', pending: new Map() };
    session.set(id, loop);
    await store.addLoop(sid.toLowerCase(), id, engine, new Date().toISOString());
    send(response, 201, { loop_id: id, engine, state: loop.state, capacity, pending: 0 });
  }

  const route = (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = request.url ?? '/';
    if (request.method === 'POST') {
      const notifyMatch = NOTIFY_PATH.exec(path);
      if (notifyMatch) return notify(request, response, decodeURIComponent(notifyMatch[1]!));
      if (path === '/v1/sessions') return openSession(request, response);
      const loopsMatch = LOOPS_PATH.exec(path);
      if (loopsMatch) return openLoop(request, response, decodeURIComponent(loopsMatch[1]!));
    }
    request.resume();
    throw new Refusal('not_found', 'No such route.');
  };

  return createServer((request, response) => {
    const fail = (error: unknown): void => {
      if (error instanceof Refusal) refuse(response, error);
      else {
        console.error(error);
        refuse(response, new Refusal('internal_error', 'An unexpected error occurred.'));
      }
    };
    try {
      route(request, response).catch(fail);
    } catch (error) {
      fail(error);
    }
  });
}
