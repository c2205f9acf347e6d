import Database from 'better-sqlite3';
import { JOURNAL_SCHEMA } from '../../apps/bench/raw-sqlite-floor.rows.js';
import { tempDir } from '../durability/support/temp-dir.js';
import { createTestApp } from '../support/test-app.js';

// The journal table and its indexes as SQLite stores them, quotes and spacing left out.
function journalSchema(db: Database.Database): string[] {
  const rows = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'pn_journal' AND sql IS NOT NULL ORDER BY name").all() as Array<{
    sql: string;
  }>;
  return rows.map(({ sql }) => sql.replace(/"/g, '').replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim());
}

describe('the bench floor', () => {
  it('appends to the journal table exactly as the migrations leave it (columns and indexes)', async () => {
    // A floor on another table shape (an index more or less) would measure something else.
    const dir = tempDir();
    try {
      const app = await createTestApp({ databaseUrl: `sqlite:${dir.file('journal.db')}` });
      await app.close();
      const migrated = new Database(dir.file('journal.db'), { readonly: true });
      const floor = new Database(':memory:');
      try {
        floor.exec(JOURNAL_SCHEMA);
        expect(journalSchema(floor)).toEqual(journalSchema(migrated));
      } finally {
        migrated.close();
        floor.close();
      }
    } finally {
      dir.remove();
    }
  });
});
