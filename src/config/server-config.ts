import { DEFAULT_DATABASE_URL, DEFAULT_LOOP_CAPACITY } from '#process-notifications';
import { randomBytes } from 'node:crypto';

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
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * Reads PORT, PN_DATABASE_URL, PN_ADMIN_TOKEN and PN_LOOP_CAPACITY; empty means unset.
 * Throws on a value that is not usable, so a misconfigured server never starts.
 */
export function serverConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const adminToken = env.PN_ADMIN_TOKEN?.trim();
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    databaseUrl: env.PN_DATABASE_URL?.trim() || DEFAULT_DATABASE_URL,
    adminToken: adminToken || randomBytes(32).toString('base64url'),
    adminTokenGenerated: !adminToken,
    loopCapacity: integer(env, 'PN_LOOP_CAPACITY', DEFAULT_LOOP_CAPACITY, 1, 1_000_000),
  };
}
