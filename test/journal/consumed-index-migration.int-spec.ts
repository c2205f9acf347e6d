import { dataSourceOptionsFromUrl, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { DataSource } from 'typeorm';
import { tempDir } from '../durability/support/temp-dir.js';
import { revertThrough } from '../support/migrations.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification } from '../support/test-app.js';

// The journal's indexes as the database has them: the secondary ones by name, the unique one by
// name and columns in order (`uq_pn_journal_idempotency(idempotency_id,session_id)`).
async function journalIndexes(databaseUrl: string): Promise<string[]> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  try {
    const rows = (await dataSource.query(
      dataSource.options.type === 'postgres'
        ? "SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'pn_journal' AND (indexname LIKE 'ix_%' OR indexname LIKE 'uq_%')"
        : "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pn_journal' AND (name LIKE 'ix_%' OR name LIKE 'uq_%')",
    )) as Array<{ name: string; sql: string }>;
    const columnsOf = (sql: string) => /\(([^()]*)\)\s*$/.exec(sql)![1]!.replace(/["\s]/g, '');
    return rows.map(({ name, sql }) => (name.startsWith('uq_') ? `${name}(${columnsOf(sql)})` : name)).sort();
  } finally {
    await dataSource.destroy();
  }
}

// Copies a journaled record under its own id and session: the unique index must refuse it.
async function copyRecord(databaseUrl: string, idempotencyId: string): Promise<void> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  const columns = 'session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at';
  try {
    // A test's own UUID, inlined: placeholders differ between the two databases.
    await dataSource.query(
      `INSERT INTO pn_journal (${columns}) SELECT ${columns} FROM pn_journal WHERE idempotency_id = '${idempotencyId}'`,
    );
  } finally {
    await dataSource.destroy();
  }
}

// A journal written before a migration that changes how consumed records are found keeps working
// after the upgrade: restore still leaves consumed notifications out, and a late retry of one is
// still a duplicate. `before` is what the journal's indexes were before that migration.
async function upgradeKeepsConsumption(databaseUrl: string, migration: string, before: (indexes: string[]) => void): Promise<void> {
  let app = await createTestApp({ databaseUrl });
  const service: ProcessNotificationsService = app.service;
  const { sessionId } = await service.openSession();
  const { loopId } = await service.openLoop(sessionId);
  const sent = [0, 1, 2].map((i) => notification(sessionId, loopId, { process_handle: `proc-${i}` }));
  for (const n of sent) await service.notifyProcessCompletion(sessionId, n);
  await service.consume(sessionId, loopId, sent[1]!.command_id as string);
  await app.close();

  await revertThrough(databaseUrl, migration);
  before(await journalIndexes(databaseUrl));

  app = await createTestApp({ databaseUrl });
  try {
    // Consumed records are found by their own id, command ids in every session by theirs (the
    // unique index): neither index by cause is left, nor the command ids' own.
    expect(await journalIndexes(databaseUrl)).toEqual([
      'ix_pn_journal_loop_notifications',
      'ix_pn_journal_loop_sequence',
      'ix_pn_journal_session_sequence',
      'uq_pn_journal_idempotency(idempotency_id,session_id)',
    ]);
    // An id is still unique within its session.
    await expect(copyRecord(databaseUrl, sent[2]!.command_id as string)).rejects.toThrow(/unique/i);
    const pending = await app.service.pendingNotifications(sessionId, loopId);
    expect(pending.map((p) => p.commandId)).toEqual([sent[0]!.command_id, sent[2]!.command_id]);
    await expect(app.service.notifyProcessCompletion(sessionId, { ...sent[1] })).resolves.toMatchObject({
      disposition: 'duplicate',
      appended: false,
    });
    // And consumption written after the upgrade is found the same way.
    await app.service.consume(sessionId, loopId, sent[0]!.command_id as string);
    await expect(app.service.notifyProcessCompletion(sessionId, { ...sent[0] })).resolves.toMatchObject({ disposition: 'duplicate' });
    expect((await app.service.pendingNotifications(sessionId, loopId)).map((p) => p.commandId)).toEqual([sent[2]!.command_id]);
  } finally {
    await app.close();
  }
}

// Before 1764900000000 every record had an entry by cause; from it to 1765500000000 consumed
// records only; after, none (the unique index finds a consumed record by its id).
const MIGRATIONS: Array<[string, string, (indexes: string[]) => void]> = [
  [
    'the consumed-records index migration',
    'ConsumedIndex1764900000000',
    (indexes) => expect(indexes).toEqual(['ix_pn_journal_cause', 'uq_pn_journal_idempotency(session_id,idempotency_id)']),
  ],
  [
    'the consumed-by-id migration',
    'ConsumedById1765500000000',
    (indexes) => expect(indexes).toEqual(expect.arrayContaining(['ix_pn_journal_consumed', 'ix_pn_journal_command'])),
  ],
  [
    'the unique-id-first migration',
    'UniqueIdFirst1765500000500',
    (indexes) =>
      expect(indexes).toEqual(expect.arrayContaining(['ix_pn_journal_command', 'uq_pn_journal_idempotency(session_id,idempotency_id)'])),
  ],
];

describe.each(MIGRATIONS)('%s', (_title, migration, before) => {
  it('upgrades a SQLite journal written without it, and reverts', async () => {
    const dir = tempDir();
    try {
      await upgradeKeepsConsumption(`sqlite:${dir.file('journal.db')}`, migration, before);
    } finally {
      dir.remove();
    }
  });

  it('upgrades a PostgreSQL journal written without it, and reverts', async () => {
    await inFreshSchema((databaseUrl) => upgradeKeepsConsumption(databaseUrl, migration, before));
  });
});
