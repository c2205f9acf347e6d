import Database from 'better-sqlite3';
import { JournalUnavailableError } from 'nestjs-process-notifications';
import { notification, useSessionWithLoop } from '../support/test-app.js';
import { tempDir } from './support/temp-dir.js';

// The fault is SQLite's own: the writer's connection may not grow the file past max_page_count,
// so statements fail with SQLITE_FULL exactly as on a full disk. What the caller was told is
// then checked against a second connection that reads the file.
describe('a SQLite write that fails with SQLITE_FULL (max_page_count)', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: Database.Database;

  beforeEach(() => {
    dir = tempDir();
  });
  const t = useSessionWithLoop(() => ({ databaseUrl: `sqlite:${dir.file('journal.db')}`, loopCapacity: 100_000 }));
  beforeEach(() => {
    db = (t.dataSource.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
  });
  // Declared after useSessionWithLoop, so it runs once the app has closed the file.
  afterEach(() => dir.remove());

  const onDisk = (): Set<string> => {
    const reader = new Database(dir.file('journal.db'), { readonly: true });
    try {
      const rows = reader.prepare("SELECT idempotency_id FROM pn_journal WHERE kind = 'process_notification'").all() as Array<{
        idempotency_id: string;
      }>;
      return new Set(rows.map((row) => row.idempotency_id));
    } finally {
      reader.close();
    }
  };

  const deliverAll = (count: number) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const n = notification(t.sessionId, t.loopId, { process_handle: `h-${'x'.repeat(100)}` });
        try {
          await t.service.notifyProcessCompletion(t.sessionId, n);
          return { id: n.command_id as string, ok: true as const };
        } catch (error) {
          return { id: n.command_id as string, ok: false as const, error };
        }
      }),
    );

  it('answers success only for what is on disk, fails closed while full, and recovers without a restart', async () => {
    const { service, sessionId, loopId } = t;
    await deliverAll(20);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    // Concurrent callers: group commit puts them in shared transactions, which fill the file.
    const whileFull = await deliverAll(400);
    // One at a time until not even one more record fits.
    for (let i = 0; i < 1000 && (whileFull.at(-1)!.ok || whileFull.length === 400); i++) whileFull.push(...(await deliverAll(1)));
    const refused = whileFull.filter((answer) => !answer.ok);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expect(answer.error).toBeInstanceOf(JournalUnavailableError);
    // The connection is left out of any transaction: nothing later can become a savepoint.
    expect(db.inTransaction).toBe(false);
    expect(await service.isHealthy()).toBe(false);
    // Still full: later callers are refused too, not acknowledged into an uncommitted transaction.
    const stillFull = await deliverAll(50);
    expect(stillFull.every((answer) => !answer.ok)).toBe(true);

    db.pragma('max_page_count = 1073741823');
    expect(await service.isHealthy()).toBe(true);
    const afterwards = await deliverAll(50);
    expect(afterwards.every((answer) => answer.ok)).toBe(true);

    const disk = onDisk();
    for (const answer of [...whileFull, ...stillFull, ...afterwards]) expect(disk.has(answer.id)).toBe(answer.ok);
    // And what was accepted is exactly what the loop holds.
    const pending = new Set((await service.pendingNotifications(sessionId, loopId)).map((n) => n.commandId));
    expect(pending).toEqual(disk);
  });

  it('repairs a connection left inside a transaction before the next write', async () => {
    const { service, sessionId, loopId } = t;
    // As if a COMMIT failed and SQLite kept the transaction open (or TypeORM lost track of it).
    db.exec('BEGIN');
    db.exec("INSERT INTO pn_sessions (session_id, token_hash, created_at) VALUES ('00000000-0000-4000-8000-000000000001', NULL, 'x')");
    const n = notification(sessionId, loopId);
    await expect(service.notifyProcessCompletion(sessionId, n)).resolves.toMatchObject({ disposition: 'accepted' });
    expect(db.inTransaction).toBe(false);
    // The stray write was rolled back; the delivery committed for real.
    expect(onDisk().has(n.command_id as string)).toBe(true);
    const reader = new Database(dir.file('journal.db'), { readonly: true });
    expect(reader.prepare('SELECT COUNT(*) AS n FROM pn_sessions').get()).toEqual({ n: 1 });
    reader.close();
  });
});
