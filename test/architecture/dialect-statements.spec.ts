import { dialectStatementsOutsideDialects } from './dialect-statements.js';
import { scratchTree } from './scratch-tree.js';

/**
 * Every SQLite- or PostgreSQL-only statement lives in its store dialect (issue 49): none of
 * `PRAGMA`, `sqlite_master`, `pg_notify`, an advisory lock or a `LATERAL` join is written
 * anywhere else in the library or the server (the migrations aside).
 */
describe('dialect statements', () => {
  it.each(['libs/process-notifications/src', 'src'])('%s writes no database-specific statement outside the dialects', (root) => {
    expect(dialectStatementsOutsideDialects(root)).toEqual([]);
  });

  describe('the check itself', () => {
    const tree = scratchTree('pn-dialect-statements-');

    it('finds the tokens in strings and templates outside dialects/, not in comments, specs, dialects or migrations', () => {
      tree.write('persistence/journal/hint.ts', "// SELECT pg_notify in a comment\nawait q('SELECT pg_notify($1, $2)');\n");
      tree.write(
        'persistence/journal/read.ts',
        'db.prepare(`SELECT count(*) FROM sqlite_master`);\nconst x = `LEFT JOIN LATERAL (${y}) n`;\n',
      );
      tree.write('persistence/migrations/lock.ts', 'await q(`SELECT pg_try_advisory_lock(${KEY})`);\n');
      tree.write('persistence/migrations/1764-initial.migration.ts', "await q('PRAGMA foreign_keys = ON');\n");
      tree.write('persistence/dialects/sqlite-store-dialect.ts', "exec('PRAGMA synchronous = NORMAL');\n");
      tree.write('persistence/journal/hint.spec.ts', "await q('SELECT pg_notify(1)');\n");
      expect(dialectStatementsOutsideDialects(tree.root()).sort()).toEqual([
        'persistence/journal/hint.ts: pg_notify',
        'persistence/journal/read.ts: LATERAL',
        'persistence/journal/read.ts: sqlite_master',
        'persistence/migrations/lock.ts: pg_try_advisory_lock',
      ]);
    });
  });
});
