import type { LoggerService } from '@nestjs/common';
import { JournalOutage } from './journal-outage.js';

// docs/operations.md (Durability in operation, logs): an outage is logged once with its cause, then once every 30 s with a count,
// and once when it ends; never one line per failure.
describe('JournalOutage', () => {
  let now: number;
  let lines: Array<{ level: 'error' | 'log'; message: string }>;
  let outage: JournalOutage;

  beforeEach(() => {
    now = 1_000_000;
    lines = [];
    const logger: LoggerService = {
      error: (message: string) => void lines.push({ level: 'error', message }),
      log: (message: string) => void lines.push({ level: 'log', message }),
      warn: () => undefined,
    };
    outage = new JournalOutage(logger, () => now);
  });

  it('is failing from the first failed transaction until one commits', () => {
    expect(outage.failing).toBe(false);
    outage.failed(new Error('disk I/O error'));
    expect(outage.failing).toBe(true);
    outage.succeeded();
    expect(outage.failing).toBe(false);
  });

  it('logs the start with its cause, a count once every 30 s, and the end with duration and total', () => {
    outage.failed(new Error('SQLITE_FULL: database or disk is full'));
    now += 10_000;
    outage.failed(new Error('second'));
    now += 19_999;
    outage.failed(new Error('third'));
    expect(lines).toEqual([{ level: 'error', message: 'journal unavailable: SQLITE_FULL: database or disk is full' }]);

    now += 1; // 30 s after the first line
    outage.failed(new Error('fourth'));
    expect(lines[1]).toEqual({ level: 'error', message: expect.stringMatching(/3 more failed transactions; last: fourth$/) });

    now += 29_999;
    outage.failed(new Error('fifth'));
    now += 1;
    outage.failed(new Error('sixth'));
    expect(lines[2]).toEqual({ level: 'error', message: expect.stringMatching(/2 more failed transactions; last: sixth$/) });

    now += 2_500;
    outage.succeeded();
    expect(lines.slice(3)).toEqual([{ level: 'log', message: 'journal available again after 62.5 s and 6 failed transactions' }]);
    expect(lines).toHaveLength(4);
  });

  it('logs nothing when a transaction commits outside an outage, and counts a new outage from zero', () => {
    outage.succeeded();
    expect(lines).toEqual([]);
    outage.failed(new Error('first outage'));
    outage.succeeded();
    now += 1_000;
    outage.failed(new Error('second outage'));
    now += 1_000;
    outage.succeeded();
    expect(lines.map((line) => line.message)).toEqual([
      'journal unavailable: first outage',
      'journal available again after 0.0 s and 1 failed transactions',
      'journal unavailable: second outage',
      'journal available again after 1.0 s and 1 failed transactions',
    ]);
  });

  it("names the driver's cause when the error's own message does not already say it", () => {
    outage.failed(new Error('the journal could not be written', { cause: new Error('SQLITE_IOERR: disk I/O error') }));
    outage.succeeded();
    outage.failed(new Error('write failed: SQLITE_IOERR', { cause: new Error('SQLITE_IOERR') }));
    outage.succeeded();
    outage.failed('a thrown string');
    outage.succeeded();
    outage.failed(null);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'journal unavailable: the journal could not be written (SQLITE_IOERR: disk I/O error)',
      'journal unavailable: write failed: SQLITE_IOERR',
      'journal unavailable: a thrown string',
      'journal unavailable: null',
    ]);
  });
});
