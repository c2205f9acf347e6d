import { createRequire } from 'node:module';
import { tempDir } from '../durability/support/temp-dir.js';
import { createTestApp, notification } from '../support/test-app.js';

// better-sqlite3's statements, seen from outside: which SQL ran, on which connection, with what.
interface Statement {
  readonly source: string;
  readonly reader: boolean;
  readonly database: { prepare(sql: string): { all(...parameters: unknown[]): Array<{ detail: string }> } };
  all(...parameters: unknown[]): unknown[];
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (path: string) => {
  prepare(sql: string): Statement;
  close(): void;
};

// Runs `work` and returns every journal read it ran, with the plan SQLite made for it.
async function plansOf(work: () => Promise<unknown>): Promise<Array<{ sql: string; plan: string[] }>> {
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Statement;
  probe.close();
  const original = prototype.all;
  const seen: Array<{ statement: Statement; parameters: unknown[] }> = [];
  prototype.all = function (this: Statement, ...parameters: unknown[]) {
    if (/\bFROM\s+"?pn_journal"?/i.test(this.source)) seen.push({ statement: this, parameters });
    return original.apply(this, parameters);
  };
  try {
    await work();
  } finally {
    prototype.all = original;
  }
  return seen.map(({ statement, parameters }) => ({
    sql: statement.source,
    plan: statement.database
      .prepare(`EXPLAIN QUERY PLAN ${statement.source}`)
      .all(...parameters)
      .map((row) => row.detail),
  }));
}

describe('the retry of a notification consumed already', () => {
  it('finds its consumed record by one probe of a unique index, never by reading the session', async () => {
    const dir = tempDir();
    let app: Awaited<ReturnType<typeof createTestApp>> | undefined;
    try {
      app = await createTestApp({ databaseUrl: `sqlite:${dir.file('journal.db')}` });
      const { service } = app;
      const { sessionId } = await app.service.openSession();
      const { loopId } = await app.service.openLoop(sessionId);
      // Other notifications of the session, consumed: records a read of the session would pass.
      for (let i = 0; i < 40; i++) {
        const other = notification(sessionId, loopId);
        await app.service.notifyProcessCompletion(sessionId, other);
        await app.service.consume(sessionId, loopId, other.command_id as string);
      }
      const sent = notification(sessionId, loopId);
      await expect(app.service.notifyProcessCompletion(sessionId, sent)).resolves.toMatchObject({ disposition: 'accepted' });
      await app.service.consume(sessionId, loopId, sent.command_id as string);

      let answer: unknown;
      const reads = await plansOf(async () => {
        answer = await service.notifyProcessCompletion(sessionId, { ...sent });
      });
      // Journaled once, handed over once, consumed: the retry is a duplicate.
      expect(answer).toMatchObject({ disposition: 'duplicate', appended: false });
      // The retry's reads: its own record (the writer's find) and its consumed record.
      expect(reads.length).toBeGreaterThanOrEqual(2);
      for (const { sql, plan } of reads) {
        const lines = plan.join('\n');
        // Every read of the journal is a search on the session and the record's id.
        expect({ sql, plan: lines }).toEqual({
          sql,
          plan: expect.stringMatching(/SEARCH .* USING INDEX uq_pn_journal_idempotency \(idempotency_id=\? AND session_id=\?\)/),
        });
        expect({ sql, plan: lines }).not.toEqual({ sql, plan: expect.stringMatching(/\bSCAN\b/) });
      }
    } finally {
      await app?.close();
      dir.remove();
    }
  });
});
