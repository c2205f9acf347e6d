import {
  DEFAULT_DATABASE_URL,
  DEFAULT_JOURNAL_TIMEOUT_MS,
  DEFAULT_LEASE_TTL_MS,
  DEFAULT_LOOP_CAPACITY,
  DEFAULT_MAX_LOOPS_PER_SESSION,
  DEFAULT_RETENTION_DAYS,
} from 'nestjs-process-notifications';
import { randomBytes } from 'node:crypto';
import { requireSupportedDatabaseUrl } from './database-url.js';

/** Injection token of the {@link ServerConfig}. */
export const SERVER_CONFIG = Symbol('SERVER_CONFIG');

/** The server's configuration, read once at start. */
export interface ServerConfig {
  /** @default 3000 */
  readonly port: number;
  /** @default 'sqlite:./data/process-notifications.db' */
  readonly databaseUrl: string;
  /** Bearer token that opens every route; generated at start when PN_ADMIN_TOKEN is unset. */
  readonly adminToken: string;
  /** True when {@link adminToken} was generated, so that the server prints it once. */
  readonly adminTokenGenerated: boolean;
  /** @default 64 */
  readonly loopCapacity: number;
  /** @default 1000 */
  readonly maxLoopsPerSession: number;
  /** Open event streams one session may have at once with its own token. @default 16 */
  readonly maxStreamsPerSession: number;
  /**
   * Open event streams the admin token (the console) may have at once on this node, over every
   * session; counted apart from each session's own, so an operator's tabs never take a session's
   * clients' places. @default 64
   */
  readonly maxAdminStreams: number;
  /** Deadline of one journal call; a database that does not answer in time answers 503. @default 5000 */
  readonly journalTimeoutMs: number;
  /** Days a consumed notification's or lifecycle record's payload is kept. @default 30 */
  readonly retentionDays: number;
  /** Lowest level logged (pino's levels; `silent` logs nothing). @default 'info' */
  readonly logLevel: LogLevelName;
  /**
   * Several nodes on PostgreSQL: the base URL at which the other nodes reach this one; when unset,
   * `http://127.0.0.1:<port it listens on>`.
   */
  readonly nodeUrl?: string;
  /** Several nodes on PostgreSQL: how long this node's ownership of a session lasts unrenewed. @default 10000 */
  readonly leaseTtlMs: number;
  /** An idle event stream sends a `: keep-alive` comment this often, so proxies keep it open. @default 15000 */
  readonly sseKeepAliveMs: number;
  /** Whether `/console` serves the web console (PN_CONSOLE=off turns it off; the API stays). @default true */
  readonly console: boolean;
  /** Whether `/docs`, `/docs-json` and `/docs-yaml` serve the OpenAPI document (PN_API_DOCS=on). @default false */
  readonly apiDocs: boolean;
}

/** pino's levels, lowest priority last, and `silent`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** Event streams send a keep-alive comment at least this often (spec: at least every 15 s). */
export const DEFAULT_SSE_KEEP_ALIVE_MS = 15_000;

/** Open event streams one session may have at once, unless PN_MAX_STREAMS_PER_SESSION says otherwise. */
export const DEFAULT_MAX_STREAMS_PER_SESSION = 16;

/** Open event streams of the admin token on one node, unless PN_MAX_ADMIN_STREAMS says otherwise. */
export const DEFAULT_MAX_ADMIN_STREAMS = 64;

// Shortest admin token accepted: about 192 bits in base64.
const MIN_ADMIN_TOKEN_LENGTH = 32;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function adminTokenOf(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PN_ADMIN_TOKEN;
  if (!raw) return undefined;
  if (/\s/.test(raw)) throw new Error('PN_ADMIN_TOKEN must not contain whitespace');
  if (raw.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(`PN_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters, got ${raw.length}`);
  }
  return raw;
}

function nodeUrlOf(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PN_NODE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PN_NODE_URL must be an http:// URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' || url.search || url.hash) throw new Error(`PN_NODE_URL must be an http:// base URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  throw new Error(`${name} must be on or off, got "${raw}"`);
}

function logLevelOf(env: NodeJS.ProcessEnv): LogLevelName {
  const raw = env.PN_LOG_LEVEL?.trim();
  if (!raw) return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    throw new Error(`PN_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw as LogLevelName;
}

/**
 * Reads PORT, PN_DATABASE_URL, PN_ADMIN_TOKEN, PN_LOOP_CAPACITY, PN_MAX_LOOPS_PER_SESSION,
 * PN_MAX_STREAMS_PER_SESSION, PN_MAX_ADMIN_STREAMS, PN_JOURNAL_TIMEOUT_MS, PN_RETENTION_DAYS,
 * PN_LOG_LEVEL, PN_NODE_URL, PN_LEASE_TTL_MS, PN_CONSOLE and PN_API_DOCS; empty means unset. Throws, with one
 * line naming the setting, on a value that is not usable, so a misconfigured server never starts.
 */
export function serverConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const adminToken = adminTokenOf(env);
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: requireSupportedDatabaseUrl(env.PN_DATABASE_URL?.trim() || DEFAULT_DATABASE_URL),
    adminToken: adminToken ?? randomBytes(32).toString('base64url'),
    adminTokenGenerated: !adminToken,
    loopCapacity: integer(env, 'PN_LOOP_CAPACITY', DEFAULT_LOOP_CAPACITY, 1, 1_000_000),
    maxLoopsPerSession: integer(env, 'PN_MAX_LOOPS_PER_SESSION', DEFAULT_MAX_LOOPS_PER_SESSION, 1, 1_000_000),
    maxStreamsPerSession: integer(env, 'PN_MAX_STREAMS_PER_SESSION', DEFAULT_MAX_STREAMS_PER_SESSION, 1, 10_000),
    maxAdminStreams: integer(env, 'PN_MAX_ADMIN_STREAMS', DEFAULT_MAX_ADMIN_STREAMS, 1, 10_000),
    journalTimeoutMs: integer(env, 'PN_JOURNAL_TIMEOUT_MS', DEFAULT_JOURNAL_TIMEOUT_MS, 100, 600_000),
    retentionDays: integer(env, 'PN_RETENTION_DAYS', DEFAULT_RETENTION_DAYS, 1, 36_500),
    logLevel: logLevelOf(env),
    nodeUrl: nodeUrlOf(env),
    leaseTtlMs: integer(env, 'PN_LEASE_TTL_MS', DEFAULT_LEASE_TTL_MS, 1000, 3_600_000),
    sseKeepAliveMs: DEFAULT_SSE_KEEP_ALIVE_MS,
    console: onOff(env, 'PN_CONSOLE', true),
    // Off unless asked for: the document maps every route for whoever can reach the server.
    apiDocs: onOff(env, 'PN_API_DOCS', false),
  };
}
