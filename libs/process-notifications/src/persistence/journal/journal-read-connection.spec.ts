import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { AlreadyExistsError } from '../../errors/already-exists.error.js';
import { JournalUnavailableError } from '../../errors/journal-unavailable.error.js';
import type { JournalDraft } from './journal-draft.interface.js';
import { dataSourceOptionsFromUrl } from '../connection/data-source-options.js';
import { JournalWriter } from './journal-writer.service.js';
import { JournalPages } from '../pages/journal-pages.service.js';
import { RestoreReads, type RestoreRows } from '../sessions/restore-reads.service.js';
import { SessionCredentials } from '../sessions/session-credentials.js';
import { LoopEntity } from '../sessions/loop.entity.js';
import { SessionEntity } from '../sessions/session.entity.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { notificationDraft } from '../../../../../test/support/notification-fixture.js';
import { latch } from '../../../../../test/support/latch.js';
import { countEventLoopTurns } from '../../../../../test/support/event-loop-turns.js';
import { managerOf } from '../transaction/store-transaction.js';

const draft = (sessionId: string, loopId: string, idempotencyId?: string): JournalDraft =>
  notificationDraft({ sessionId, loopId, idempotencyId });

// File descriptors of this process open on `path` (Linux: /proc/self/fd).
const openHandles = (path: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;

// Reads (page, restore, consumptionOf) on a SQLite file go through a second, read-only
// connection the writer opens at module start and closes at shutdown.
describe('JournalWriter reads on a SQLite file (read-only connection)', () => {
  let dir: string;
  let file: string;
  let dataSource: DataSource;
  let writer: JournalWriter;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pn-reads-'));
    file = join(dir, 'journal.db');
    dataSource = await new DataSource(dataSourceOptionsFromUrl(`sqlite:${file}`)).initialize();
    writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    await writer.onModuleInit();
  });

  afterEach(async () => {
    await writer.onModuleDestroy();
    if (dataSource.isInitialized) await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cannot write through a read: the statement fails with JournalUnavailableError and nothing changes', async () => {
    const sessionId = randomUUID();
    await expect(
      writer.read((store) => managerOf(store).insert(SessionEntity, { sessionId, tokenHash: null, createdAt: '2026-01-01T00:00:00Z' })),
    ).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(await dataSource.query('SELECT session_id FROM pn_sessions')).toEqual([]);
  });

  it("hands a read's domain error back as it is, and any other failure as JournalUnavailableError", async () => {
    const domain = new AlreadyExistsError('loop', randomUUID());
    await expect(
      writer.read(() => {
        throw domain;
      }),
    ).rejects.toBe(domain);
    const failed = writer.read((store) => managerOf(store).query('SELECT no_such_column FROM pn_journal'));
    await expect(failed).rejects.toBeInstanceOf(JournalUnavailableError);
    await expect(failed).rejects.toThrow(/no_such_column/);
  });

  it('logs no SQL for its reads', async () => {
    const logged = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await new JournalPages(dataSource, writer).page(randomUUID(), 0, 10);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  it('returns a page in sequence order, whatever the order of the idempotency ids', async () => {
    const sessionId = randomUUID();
    const loopId = randomUUID();
    // Ids in descending order, so an index on (session, idempotency id) would list them backwards.
    const ids = Array.from({ length: 12 }, () => randomUUID())
      .sort()
      .reverse();
    for (const id of ids) await writer.append(draft(sessionId, loopId, id));
    const page = await new JournalPages(dataSource, writer).page(sessionId, 0, 100);
    expect(page.map((record) => record.idempotencyId)).toEqual(ids);
    const sequences = page.map((record) => record.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    // After a sequence, up to a limit.
    expect((await new JournalPages(dataSource, writer).page(sessionId, sequences[3]!, 2)).map((record) => record.sequence)).toEqual(
      sequences.slice(4, 6),
    );
  });

  it('reads a page larger than one slice whole, in order, gap-free, and lets other work run between its slices', async () => {
    const sessionId = randomUUID();
    const loopId = randomUUID();
    const other = randomUUID();
    // Another session's records in between, so the slices must seek past them.
    for (let i = 0; i < 250; i++) {
      await writer.append(draft(sessionId, loopId));
      if (i % 3 === 0) await writer.append(draft(other, loopId));
    }
    const all = (await dataSource.query('SELECT sequence FROM pn_journal WHERE session_id = ? ORDER BY sequence', [sessionId])) as Array<{
      sequence: number;
    }>;
    const sequences = all.map((row) => row.sequence);
    // Turns of the event loop taken by other work while the page is read.
    const turns = countEventLoopTurns();
    const page = await new JournalPages(dataSource, writer).page(sessionId, 0, 1000);
    expect(page.map((record) => record.sequence)).toEqual(sequences);
    expect(turns.stop()).toBeGreaterThanOrEqual(3);
    // Limits that end inside and at the edge of a slice, from anywhere.
    for (const [after, limit] of [
      [sequences[7]!, 150],
      [sequences[0]!, 100],
      [sequences[99]!, 200],
    ] as const) {
      const start = sequences.indexOf(after) + 1;
      expect((await new JournalPages(dataSource, writer).page(sessionId, after, limit)).map((record) => record.sequence)).toEqual(
        sequences.slice(start, start + limit),
      );
    }
  });

  it('runs many small reads waiting at once in a few turns of the event loop, not one turn each', async () => {
    // 16 loops' streams reading after one commit (issue 37): with one read per turn each waited
    // for as many turns of a busy event loop as there were reads before it.
    const sessionId = randomUUID();
    await writer.append(draft(sessionId, randomUUID()));
    const turns = countEventLoopTurns();
    const pages = await Promise.all(Array.from({ length: 32 }, () => new JournalPages(dataSource, writer).page(sessionId, 0, 1)));
    expect(pages.every((page) => page.length === 1)).toBe(true);
    expect(turns.stop()).toBeLessThanOrEqual(16);
  });

  it("restores one session's rows only, or every session's", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const loops = { [a]: randomUUID(), [b]: randomUUID() };
    for (const sessionId of [a, b]) {
      await dataSource.manager.insert(SessionEntity, { sessionId, tokenHash: null, createdAt: '2026-01-01T00:00:00Z' });
      await dataSource.manager.insert(LoopEntity, {
        sessionId,
        loopId: loops[sessionId]!,
        engine: 'native',
        state: 'running',
        createdAt: '2026-01-01T00:00:00Z',
      } as LoopEntity);
      await writer.append(draft(sessionId, loops[sessionId]!));
    }
    const restored = async (sessionId?: string) => {
      const pending: string[] = [];
      let rows: RestoreRows | undefined;
      await new RestoreReads(dataSource, writer, new SessionCredentials()).restore(sessionId, (read) => {
        rows = read;
        return (row) => pending.push((JSON.parse(row.payload) as { session_id: string }).session_id);
      });
      return { ...rows!, pending };
    };
    const one = await restored(a);
    expect(one.sessions.map((session) => session.sessionId)).toEqual([a]);
    expect(one.loops.map((loop) => [loop.sessionId, loop.loopId])).toEqual([[a, loops[a]]]);
    expect(one.pending).toEqual([a]);
    const every = await restored();
    expect(every.sessions.map((session) => session.sessionId).sort()).toEqual([a, b].sort());
    expect(every.loops).toHaveLength(2);
    expect(every.pending.sort()).toEqual([a, b].sort());
  });

  it('closes its read-only connection at shutdown: the file is left whole, with no handle or WAL file', async () => {
    await new JournalPages(dataSource, writer).page(randomUUID(), 0, 10);
    expect(openHandles(file)).toBeGreaterThan(0);
    await writer.onModuleDestroy();
    // A second shutdown is harmless.
    await writer.onModuleDestroy();
    await dataSource.destroy();
    // The last connection to close checkpoints the WAL into the file and removes it.
    expect(openHandles(file)).toBe(0);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});

describe('JournalWriter reads on in-memory SQLite', () => {
  it('reads the one in-memory database even after module start (no second connection there)', async () => {
    const dataSource = await new DataSource(dataSourceOptionsFromUrl('sqlite::memory:')).initialize();
    try {
      const writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
      await writer.onModuleInit();
      const sessionId = randomUUID();
      const { record } = await writer.append(draft(sessionId, randomUUID()));
      await expect(new JournalPages(dataSource, writer).page(sessionId, 0, 10)).resolves.toEqual([record]);
      await writer.onModuleDestroy();
    } finally {
      await dataSource.destroy();
    }
  });
});

const SESSION = randomUUID();
const LOOP = randomUUID();

describe('JournalWriter reads on a SQLite file', () => {
  let dir: string;
  let dataSource: DataSource;
  let writer: JournalWriter;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pn-reads-'));
    dataSource = await new DataSource(dataSourceOptionsFromUrl(`sqlite:${join(dir, 'journal.db')}`)).initialize();
    writer = new JournalWriter(dataSource, new SessionLeases(dataSource));
    await writer.onModuleInit();
  });

  afterEach(async () => {
    await writer.onModuleDestroy();
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not wait behind a write transaction in progress, and sees only what committed', async () => {
    const committed = await writer.append(draft(SESSION, LOOP));
    const [gate, release] = latch();
    const [inTransaction, entered] = latch();
    // A unit of work that has written a record and holds its transaction open until released.
    const held = writer.write(async (_store, journal) => {
      await journal.append(draft(SESSION, LOOP));
      entered();
      await gate;
    });
    await inTransaction;
    const page = await new JournalPages(dataSource, writer).page(SESSION, 0, 10);
    expect(page.map((record) => record.sequence)).toEqual([committed.record.sequence]);
    release();
    await held;
    expect(await new JournalPages(dataSource, writer).page(SESSION, 0, 10)).toHaveLength(2);
  });
});
