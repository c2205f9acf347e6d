import { dialectStatementsOutsideDialects } from './dialect-statements.js';
import { scratchTree } from './scratch-tree.js';

/**
 * Every SQLite- or PostgreSQL-only statement lives in its store dialect (issue 49): none of
 * `PRAGMA`, `sqlite_master`, `pg_notify`, an advisory lock, a `LATERAL` join, `unnest`, `LISTEN`,
 * `FOR UPDATE`, a `::` cast, a `$1` placeholder, `now()` (see dialect-statements.ts) is written
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

    it("finds PostgreSQL's unnest, LISTEN, row locks, casts, placeholders and clock, and SQLite's own functions", () => {
      const statements = [
        'FROM unnest(${a}::varchar[]) WITH ORDINALITY AS v(x)',
        'LISTEN ${CHANNEL}',
        'UNLISTEN pn_journal',
        'SELECT * FROM t ORDER BY id FOR UPDATE OF t',
        'SET LOCAL lock_timeout = 1',
        'SELECT ${p(0)}::${type}',
        'SELECT x::int AS y',
        'DELETE FROM t WHERE id = $1',
        'UPDATE t SET x = now() WHERE y IN ($2)',
        "WHERE at > stamp - interval '1 day'",
        "SELECT payload ->> 'x' FROM t",
        'WHERE id = ANY(${ids})',
        "SELECT json_extract(payload, '$.x')",
        'UPDATE sqlite_sequence SET seq = 1',
        'INSERT OR IGNORE INTO t VALUES (1)',
      ];
      statements.forEach((statement, i) => tree.write(`persistence/rows/s${String(i).padStart(2, '0')}.ts`, `q(\`${statement}\`);\n`));
      expect(dialectStatementsOutsideDialects(tree.root()).map((found) => found.split(': ')[1])).toEqual([
        'unnest',
        'LISTEN',
        'UNLISTEN',
        'FOR UPDATE',
        'SET LOCAL',
        '::${',
        '::int',
        '= $1',
        'now()',
        "interval '",
        '->>',
        '= ANY(',
        'json_extract',
        'sqlite_sequence',
        'INSERT OR IGNORE',
      ]);
    });

    it("leaves log lines that name the LISTEN connection, 'sqlite::memory:', a replacement's $1 and performance.now() alone", () => {
      tree.write(
        'persistence/journal/listener.ts',
        [
          "warn('journal LISTEN connection lost');",
          "throw new Error('use sqlite::memory: or postgres://');",
          "url.replace(/^(\\w+:\\/\\/[^:]+):[^@]*@/, '$1:***@');",
          'const at = `${performance.now()} ms, for update`;',
        ].join('\n'),
      );
      expect(dialectStatementsOutsideDialects(tree.root())).toEqual([]);
    });
  });
});
