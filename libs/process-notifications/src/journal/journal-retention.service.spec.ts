import { jest } from '@jest/globals';
import { Logger, type LoggerService } from '@nestjs/common';
import type { JournalPruning } from '../persistence/journal/journal-pruning.service.js';
import { JournalRetention } from './journal-retention.service.js';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

// docs/operations.md (Retention): every hour and on demand, payloads older than PN_RETENTION_DAYS days
// (default 30, spec §11) are dropped, at most 1,000 per transaction.
describe('JournalRetention (a writer that only records what it is asked)', () => {
  let calls: Array<{ cutoff: string; limit: number }>;
  let answers: Array<number | Error>;
  let logged: Array<{ level: string; message: string }>;
  let writer: JournalPruning;

  beforeEach(() => {
    calls = [];
    answers = [];
    logged = [];
    writer = {
      dropPayloads: (cutoff: string, limit: number) => {
        calls.push({ cutoff, limit });
        const answer = answers.shift() ?? 0;
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
      },
    } as unknown as JournalPruning;
    const capture: LoggerService = {
      log: (message: string) => void logged.push({ level: 'log', message }),
      warn: (message: string) => void logged.push({ level: 'warn', message }),
      error: (message: string) => void logged.push({ level: 'error', message }),
    };
    Logger.overrideLogger(capture);
  });
  afterEach(() => {
    Logger.overrideLogger(false);
    jest.useRealTimers();
  });

  it('drops payloads older than 30 days by default, 1,000 per transaction until a batch is not full', async () => {
    answers = [1000, 1000, 7];
    const now = new Date('2026-03-31T12:00:00.000Z');
    expect(await new JournalRetention(writer).prune(now)).toBe(2007);
    expect(calls).toEqual([
      { cutoff: '2026-03-01T12:00:00.000Z', limit: 1000 },
      { cutoff: '2026-03-01T12:00:00.000Z', limit: 1000 },
      { cutoff: '2026-03-01T12:00:00.000Z', limit: 1000 },
    ]);
    expect(logged).toEqual([{ level: 'log', message: expect.stringContaining('2007') }]);
  });

  it('stops after one batch that is not full, and logs nothing when nothing was old enough', async () => {
    answers = [999];
    const retention = new JournalRetention(writer, { retentionDays: 1 });
    expect(await retention.prune(new Date('2026-03-31T12:00:00.000Z'))).toBe(999);
    expect(calls).toEqual([{ cutoff: '2026-03-30T12:00:00.000Z', limit: 1000 }]);
    expect(await retention.prune(new Date('2026-03-31T12:00:00.000Z'))).toBe(0);
    expect(logged).toHaveLength(1);
  });

  it('accepts any whole number of days from 1, and refuses anything else', () => {
    expect(() => new JournalRetention(writer, { retentionDays: 1 })).not.toThrow();
    for (const retentionDays of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new JournalRetention(writer, { retentionDays })).toThrow(
        `retentionDays must be a positive integer, got ${String(retentionDays)}`,
      );
    }
  });

  it('runs every hour once the application started, until the module is destroyed; a failed run is logged', async () => {
    jest.useFakeTimers({ now: new Date('2026-03-31T12:00:00.000Z') });
    const retention = new JournalRetention(writer, { retentionDays: 2 });
    retention.onApplicationBootstrap();
    jest.advanceTimersByTime(HOUR_MS - 1);
    expect(calls).toEqual([]);

    answers = [new Error('the database is gone')];
    await jest.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([{ cutoff: new Date(Date.parse('2026-03-31T13:00:00.000Z') - 2 * DAY_MS).toISOString(), limit: 1000 }]);
    expect(logged).toEqual([{ level: 'warn', message: expect.stringContaining('the database is gone') }]);

    await jest.advanceTimersByTimeAsync(HOUR_MS);
    expect(calls).toHaveLength(2);
    retention.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(10 * HOUR_MS);
    expect(calls).toHaveLength(2);
  });
});
