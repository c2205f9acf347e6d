import { dataSourceOptionsFromUrl, type ProcessNotificationsService } from 'nestjs-process-notifications';
import { DataSource } from 'typeorm';
import { tempDir } from '../durability/support/temp-dir.js';
import { revertThrough } from '../support/migrations.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification } from '../support/test-app.js';

// The journal's secondary indexes, by name, as the database has them.
async function journalIndexes(databaseUrl: string): Promise<string[]> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  try {
    const rows = (await dataSource.query(
      dataSource.options.type === 'postgres'
        ? "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'pn_journal' AND indexname LIKE 'ix_%'"
        : "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pn_journal' AND name LIKE 'ix_%'",
    )) as Array<{ name: string }>;
    return rows.map((row) => row.name).sort();
  } finally {
    await dataSource.destroy();
  }
}

// A journal written before the consumed-records index existed keeps working after the upgrade:
// restore still leaves consumed notifications out, and a late retry of one is still a duplicate.
async function upgradeKeepsConsumption(databaseUrl: string): Promise<void> {
  let app = await createTestApp({ databaseUrl });
  const service: ProcessNotificationsService = app.service;
  const { sessionId } = await service.openSession();
  const { loopId } = await service.openLoop(sessionId);
  const sent = [0, 1, 2].map((i) => notification(sessionId, loopId, { process_handle: `proc-${i}` }));
  for (const n of sent) await service.notifyProcessCompletion(sessionId, n);
  await service.consume(sessionId, loopId, sent[1]!.command_id as string);
  await app.close();

  await revertThrough(databaseUrl, 'ConsumedIndex1764900000000');
  expect(await journalIndexes(databaseUrl)).toEqual(['ix_pn_journal_cause']);

  app = await createTestApp({ databaseUrl });
  try {
    expect(await journalIndexes(databaseUrl)).toContain('ix_pn_journal_consumed');
    expect(await journalIndexes(databaseUrl)).not.toContain('ix_pn_journal_cause');
    expect(await journalIndexes(databaseUrl)).toContain('ix_pn_journal_session_sequence');
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

describe('the consumed-records index migration', () => {
  it('upgrades a SQLite journal written without it, and reverts', async () => {
    const dir = tempDir();
    try {
      await upgradeKeepsConsumption(`sqlite:${dir.file('journal.db')}`);
    } finally {
      dir.remove();
    }
  });

  it('upgrades a PostgreSQL journal written without it, and reverts', async () => {
    await inFreshSchema(upgradeKeepsConsumption);
  });
});
