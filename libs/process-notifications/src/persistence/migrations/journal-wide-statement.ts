import type { QueryRunner } from 'typeorm';
import { storeDialectOf } from '../dialects/store-dialects.js';

/**
 * Runs a migration's statement over the whole journal (an index build, a one-time fill): on a
 * large journal it outlasts a statement's bound on PostgreSQL, so it runs without that bound (the
 * dialect's `unboundedStatement`), in the migration's transaction.
 */
export function journalWideStatement(runner: QueryRunner, sql: string): Promise<void> {
  return storeDialectOf(runner.connection).unboundedStatement(runner, sql);
}
