import { dialectBranches, storeBoundaryBreaches, stringLiterals } from './store-boundary.js';
import { scratchTree } from './scratch-tree.js';

// Where persistence/ may name a driver: the dialects and the chooser, and the options built from a URL.
const DIALECT_FILES = ['store-dialects.ts', 'sqlite-store-dialect.ts', 'postgres-store-dialect.ts', 'data-source-options.ts'];

/**
 * One store boundary (issue 38): every SQL statement, database package and dialect branch of the
 * library and of the server lives in a `persistence/` folder, behind the ports the rest calls.
 */
describe('store boundary', () => {
  it.each(['libs/process-notifications/src', 'src'])('%s issues no SQL and imports no database package outside persistence/', (root) => {
    expect(storeBoundaryBreaches(root)).toEqual([]);
  });

  it('persistence/ asks its store dialect, never the driver type (the migrations aside)', () => {
    expect(dialectBranches('libs/process-notifications/src', DIALECT_FILES)).toEqual([]);
  });

  describe('the check itself', () => {
    const tree = scratchTree('pn-store-boundary-');
    const write = tree.write;

    it('finds a database import and statements in quotes and templates, outside persistence/ only', () => {
      write('admin/reads.ts', "import type { EntityManager } from 'typeorm';\nconst q = `SELECT id\n  FROM t WHERE x = ${1}`;\n");
      write('feed/listen.ts', "import pg from 'pg';\nawait client.query(`LISTEN ${CHANNEL}`);\nlog('the LISTEN connection is lost');\n");
      write('deep/more/write.ts', 'const sql = "UPDATE pn_loops SET state = 1";\nconst other = \'DELETE FROM pn_journal\';\n');
      write('persistence/rows.ts', "import { DataSource } from 'typeorm';\nconst q = 'INSERT INTO pn_journal VALUES (1)';\n");
      expect(storeBoundaryBreaches(tree.root()).sort()).toEqual([
        'admin/reads.ts: SQL "SELECT id\n  FROM"',
        'admin/reads.ts: imports typeorm',
        'deep/more/write.ts: SQL "DELETE FROM"',
        'deep/more/write.ts: SQL "UPDATE pn_loops SET"',
        'feed/listen.ts: SQL "LISTEN ${CHANNEL}"',
        'feed/listen.ts: imports pg',
      ]);
    });

    it('lets comments, specs and words that are no statement through', () => {
      write(
        'admin/ok.ts',
        "// SELECT * FROM pn_journal, in a comment\n/* DELETE FROM x */\nconst s = 'select the loops; update the view';\n",
      );
      write('admin/ok.spec.ts', "import { DataSource } from 'typeorm';\nconst q = 'SELECT 1';\n");
      expect(storeBoundaryBreaches(tree.root())).toEqual([]);
    });

    it('finds a branch on the driver type in persistence/, not in a migration, a dialect or a comment', () => {
      write('persistence/rows.ts', "// options.type === 'postgres' in a comment\nconst pg = dataSource.options.type === 'postgres';\n");
      write('persistence/migrations/1-initial.migration.ts', "if (runner.connection.options.type === 'postgres') up();\n");
      write('persistence/dialects/store-dialects.ts', "const d = { 'better-sqlite3': 1 };\n");
      write('admin/a.ts', "const x = 'postgres';\n");
      expect(dialectBranches(tree.root(), ['store-dialects.ts'])).toEqual([
        "persistence/rows.ts:2: const pg = dataSource.options.type === 'postgres';",
      ]);
    });

    it('reads string literals across escapes and skips a URL inside one', () => {
      expect(stringLiterals("const a = 'it\\'s'; // 'not this'\nconst b = \"postgres://x\";")).toEqual(["it\\'s", 'postgres://x']);
    });
  });
});
