import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalDraft } from '../journal/journal-draft.interface.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { JournalHealth } from './journal-health.service.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { notificationDraft } from '../../../../../test/support/notification-fixture.js';
import { tempDir } from '../../../../../test/durability/support/temp-dir.js';

const SESSION = randomUUID();
const LOOP = randomUUID();

const draft = (idempotencyId?: string): JournalDraft => notificationDraft({ sessionId: SESSION, loopId: LOOP, idempotencyId });

// While SQLite fails (a full disk), the health probe is a real append of a largest
// notification, taken back in its transaction: a disk with room for a small record only stays
// unhealthy. What the probe inserts is recorded by a temporary trigger on the real database.
describe('JournalWriter health probe while SQLite is full', () => {
  it('appends a largest notification at the right edge of the journal, and leaves no row and no gap behind', async () => {
    const dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    try {
      const db = (dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
      const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
      const health = new JournalHealth(writer, dataSource);
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const before = await writer.append(draft());
      // Full: the next record needs a page the database may not take.
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      const big = { ...draft(), payload: { blob: 'x'.repeat(20_000) } };
      await expect(writer.append(big)).rejects.toBeInstanceOf(JournalUnavailableError);
      db.pragma('max_page_count = 1073741823');

      // SQLite itself records what the probe inserts, whichever way the statement was sent.
      db.exec(`CREATE TEMP TABLE seen AS SELECT * FROM main.pn_journal WHERE 0;
        CREATE TEMP TRIGGER watch AFTER INSERT ON main.pn_journal BEGIN INSERT INTO seen SELECT * FROM main.pn_journal WHERE sequence = NEW.sequence; END;`);
      await expect(health.isHealthy()).resolves.toBe(true);
      const id = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
      const inserts = db.prepare('SELECT * FROM temp.seen').all() as Array<Record<string, unknown>>;
      expect(inserts).toHaveLength(1);
      const {
        session_id: sessionId,
        loop_id: loopId,
        kind,
        idempotency_id: idempotencyId,
        payload,
        cause_command_id: causeCommandId,
      } = inserts[0]!;
      expect({ sessionId, loopId, kind, idempotencyId, causeCommandId }).toEqual({
        sessionId: id,
        loopId: id,
        kind: 'process_notification',
        idempotencyId: id,
        causeCommandId: id,
      });
      expect(JSON.parse(payload as string)).toEqual({
        command_id: id,
        session_id: id,
        loop_id: id,
        process_handle: 'p'.repeat(128),
        state: 'exited',
        reason: 'exited',
      });
      // Taken back: no row, and the next record follows the last one without a gap.
      expect(await dataSource.query('SELECT COUNT(*) AS n FROM pn_journal WHERE session_id = ?', [id])).toEqual([{ n: 0 }]);
      const after = await writer.append(draft());
      expect(after.record.sequence).toBe(before.record.sequence + 1);
      jest.restoreAllMocks();
    } finally {
      await dataSource.destroy();
    }
  });
});

// A burst of health checks (a load balancer's, /healthz under load) shares one probe: one job in
// the writer's queue, not one per check; a check after it answered runs a probe of its own.
describe('JournalWriter health checks that arrive together', () => {
  it('share the probe still waiting for its transaction, and a later check gets its own', async () => {
    const dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    const health = new JournalHealth(writer, dataSource);
    const jobs: number[] = [];
    const subscription = writer.commits$.subscribe(({ size }) => jobs.push(size));
    try {
      const burst = await Promise.all([writer.append(draft()), ...Array.from({ length: 50 }, () => health.isHealthy())]);
      expect(burst.slice(1)).toEqual(Array.from({ length: 50 }, () => true));
      // The append and one probe.
      expect(jobs.reduce((sum, size) => sum + size, 0)).toBe(2);
      await expect(health.isHealthy()).resolves.toBe(true);
      expect(jobs.reduce((sum, size) => sum + size, 0)).toBe(3);
    } finally {
      subscription.unsubscribe();
      await dataSource.destroy();
    }
  });
});

// A healthy store's probe runs no statement: its transaction is the test. On SQLite that is
// BEGIN IMMEDIATE, which must take the write lock, so a database another process holds is not
// healthy, and is again once that process lets go.
describe('JournalWriter health probe on a SQLite file another process holds', () => {
  it('answers false while another connection holds the write lock, and true once it commits', async () => {
    const dir = tempDir();
    const dataSource = await new DataSource(dataSourceOptionsFromUrl(`sqlite:${dir.file('journal.db')}`)).initialize();
    const other = new Database(dir.file('journal.db'));
    try {
      const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
      const health = new JournalHealth(writer, dataSource);
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      await expect(health.isHealthy()).resolves.toBe(true);
      other.exec('BEGIN IMMEDIATE');
      await expect(health.isHealthy()).resolves.toBe(false);
      other.exec('COMMIT');
      // The writer may still be settling its failed transaction: healthy again within a few probes.
      let healthy = false;
      for (let attempt = 0; attempt < 5 && !healthy; attempt += 1) healthy = await health.isHealthy();
      expect(healthy).toBe(true);
    } finally {
      jest.restoreAllMocks();
      other.close();
      await dataSource.destroy();
      dir.remove();
    }
  }, 20_000);
});
