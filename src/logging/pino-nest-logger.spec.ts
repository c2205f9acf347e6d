import { Writable } from 'node:stream';
import { pino } from 'pino';
import { PinoNestLogger } from './pino-nest-logger.js';

/** A PinoNestLogger over a pino logger at `level` whose lines are kept, parsed. */
function loggerAt(level: pino.LevelWithSilent): { logger: PinoNestLogger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: new PinoNestLogger(pino({ level, base: undefined, timestamp: false }, sink)), lines };
}

describe('PinoNestLogger (Nest logger calls as JSON lines)', () => {
  it('puts the context of log and warn calls in `context`, the message in `msg`, at the matching level', () => {
    const { logger, lines } = loggerAt('info');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.warn('journal slow', 'JournalWriter');
    logger.debug('not at info', 'Anything');
    expect(lines).toEqual([
      { level: 30, context: 'NestApplication', msg: 'Nest application successfully started' },
      { level: 40, context: 'JournalWriter', msg: 'journal slow' },
    ]);
  });

  it('keeps the stack of error(message, stack, context) in `stack`, and a lone message without one', () => {
    const { logger, lines } = loggerAt('info');
    logger.error('boom', 'Error: boom\n    at somewhere', 'HTTP');
    logger.error('only a message', 'HTTP');
    expect(lines).toEqual([
      { level: 50, context: 'HTTP', stack: 'Error: boom\n    at somewhere', msg: 'boom' },
      { level: 50, context: 'HTTP', msg: 'only a message' },
    ]);
  });

  it("leaves out Nest's ExceptionHandler error of a failed creation: the caller reports it (one fatal line)", () => {
    const { logger, lines } = loggerAt('info');
    logger.error(new Error('the database schema is newer than this release'), 'ExceptionHandler');
    logger.error(new Error('a route failed'), 'ExceptionsHandler');
    expect(lines).toEqual([expect.objectContaining({ level: 50, context: 'ExceptionsHandler', msg: 'a route failed' })]);
  });

  it('logs an Error as `err` with its message, and spreads an object into the line', () => {
    const { logger, lines } = loggerAt('trace');
    logger.fatal(new Error('cannot start'), 'Server');
    logger.verbose({ sessions: 3 }, 'Restore');
    expect(lines[0]).toMatchObject({ level: 60, context: 'Server', msg: 'cannot start', err: { message: 'cannot start' } });
    expect(lines[1]).toEqual({ level: 10, context: 'Restore', sessions: 3 });
  });
});
