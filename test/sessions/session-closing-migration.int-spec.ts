import { dataSourceOptionsFromUrl, SessionClosedError } from 'nestjs-process-notifications';
import { DataSource } from 'typeorm';
import { tempDir } from '../durability/support/temp-dir.js';
import { revertThrough } from '../support/migrations.js';
import { inFreshSchema } from '../support/postgres.js';
import { createTestApp, notification } from '../support/test-app.js';

// The columns of pn_sessions, as the database has them.
async function sessionColumns(databaseUrl: string): Promise<string[]> {
  const dataSource = await new DataSource({ ...dataSourceOptionsFromUrl(databaseUrl), migrationsRun: false }).initialize();
  try {
    const rows = (await dataSource.query(
      dataSource.options.type === 'postgres'
        ? "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'pn_sessions'"
        : "SELECT name FROM pragma_table_info('pn_sessions')",
    )) as Array<{ name: string }>;
    return rows.map((row) => row.name).sort();
  } finally {
    await dataSource.destroy();
  }
}

// A database written before sessions could be closed: after the upgrade its sessions are open,
// their tokens still work, and they can be rotated and closed, durably (a restart keeps both).
async function upgradeThenRevoke(databaseUrl: string): Promise<void> {
  let app = await createTestApp({ databaseUrl });
  const kept = await app.service.openSession();
  const closing = await app.service.openSession();
  const { loopId } = await app.service.openLoop(closing.sessionId);
  await app.close();

  await revertThrough(databaseUrl, 'SessionClosing1765200000000');
  expect(await sessionColumns(databaseUrl)).not.toContain('closed_at');

  app = await createTestApp({ databaseUrl });
  try {
    expect(await sessionColumns(databaseUrl)).toContain('closed_at');
    await expect(app.service.authenticate(kept.token)).resolves.toBe(kept.sessionId);
    await expect(app.service.getSession(kept.sessionId)).resolves.toMatchObject({ state: 'open', closedAt: null });
    const rotated = await app.service.rotateSessionToken(kept.sessionId);
    const closed = await app.service.closeSession(closing.sessionId);
    expect(closed).toEqual({ sessionId: closing.sessionId, state: 'closed', closedAt: expect.any(String) });
    await app.close();

    app = await createTestApp({ databaseUrl });
    await expect(app.service.authenticate(kept.token)).resolves.toBeUndefined();
    await expect(app.service.authenticate(rotated.token)).resolves.toBe(kept.sessionId);
    await expect(app.service.authenticate(closing.token)).resolves.toBeUndefined();
    await expect(app.service.getSession(closing.sessionId)).resolves.toMatchObject({ state: 'closed', closedAt: closed.closedAt });
    const refused = await app.service
      .notifyProcessCompletion(closing.sessionId, notification(closing.sessionId, loopId))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SessionClosedError);
    expect(refused).toMatchObject({ code: 'session_closed', sessionId: closing.sessionId, closedAt: closed.closedAt });
    await expect(app.service.closeSession(closing.sessionId)).resolves.toEqual(closed);
  } finally {
    await app.close();
  }
}

describe('the session-closing migration', () => {
  it('upgrades a SQLite database written without it, and reverts', async () => {
    const dir = tempDir();
    try {
      await upgradeThenRevoke(`sqlite:${dir.file('journal.db')}`);
    } finally {
      dir.remove();
    }
  });

  it('upgrades a PostgreSQL database written without it, and reverts', async () => {
    await inFreshSchema(upgradeThenRevoke);
  });
});
