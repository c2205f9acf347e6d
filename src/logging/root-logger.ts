import { pino, type Logger } from 'pino';
import type { LogLevelName } from '../config/server-config.js';

// Defence in depth: nothing logs headers or bodies, but should a request, a config or an error
// object ever reach a log call, its secrets are replaced.
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'adminToken',
  '*.adminToken',
  'password',
  '*.password',
  'body',
  'req.body',
];

/** Injection token of the server's root logger (`createRootLogger`). */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * The server's one pino logger: JSON lines on stdout with an ISO time and the level as a word
 * (`"level":"info"`). Writes are synchronous, so a line logged just before `process.exit()`
 * is never lost.
 */
export function createRootLogger(level: LogLevelName): Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    pino.destination({ dest: 1, sync: true }),
  );
}
