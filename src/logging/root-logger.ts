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
 * Where the server's lines go: stdout, written asynchronously (a request never waits for the
 * write) and buffered while a write is in progress, so that lines logged together go out in one
 * write. Call {@link flushLogs} before the process exits, or lines still buffered are lost.
 */
export function createLogDestination(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

/**
 * Resolves once every line logged so far through `logger` is written (within `timeoutMs`: a
 * stdout nobody reads must not hold an exit forever).
 */
export function flushLogs(logger: Logger, timeoutMs = 2_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    timer.unref();
    logger.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The server's one pino logger: JSON lines with an ISO time and the level as a word
 * (`"level":"info"`), on `destination` (by default {@link createLogDestination}).
 */
export function createRootLogger(level: LogLevelName, destination: pino.DestinationStream = createLogDestination()): Logger {
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
