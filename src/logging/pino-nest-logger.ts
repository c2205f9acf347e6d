import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

/**
 * Nest's logger (`app.useLogger`) over the server's pino logger: one JSON line per call, with
 * Nest's context as `context` (`"context":"NestApplication"`), an error's stack as `stack`.
 * Nest calls `log(message, context?)` and `error(message, stack?, context?)`.
 */
export class PinoNestLogger implements LoggerService {
  // Nest's start-up narration (every module loaded, every route mapped: some thirty lines) is
  // detail, at `debug`: at `info` a start shows what the operator needs.
  private static readonly NARRATION = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);
  // Nest's `ExceptionHandler` logs an error of creating the app (its stack included) before it
  // rethrows it: the server creates it with `abortOnError: false`, so the caller reports it, as the
  // one documented `fatal` line of a refused start (a schema newer than this release). Not twice.
  private static readonly RETHROWN = 'ExceptionHandler';

  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    this.write(typeof context === 'string' && PinoNestLogger.NARRATION.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    if (params.at(-1) === PinoNestLogger.RETHROWN) return;
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    // The last string is the context; for errors, a string before it is the stack.
    const rest = [...params];
    if (rest.length > 0 && typeof rest.at(-1) === 'string') fields.context = rest.pop();
    if (level === 'error' && typeof rest[0] === 'string') fields.stack = rest.shift();
    if (message instanceof Error) {
      fields.err = message;
      this.logger[level](fields, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...message });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
