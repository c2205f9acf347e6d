import type { DataSource } from 'typeorm';
import { PostgresStoreDialect } from './postgres-store-dialect.js';
import { SqliteStoreDialect } from './sqlite-store-dialect.js';
import type { StoreDialect } from './store-dialect.js';

// Stateless: one of each serves every data source.
const DIALECTS: Readonly<Record<string, StoreDialect>> = {
  'better-sqlite3': new SqliteStoreDialect(),
  postgres: new PostgresStoreDialect(),
};

/** The dialect of a data source's database, chosen from its options' driver type. */
export function storeDialectOf(dataSource: Pick<DataSource, 'options'>): StoreDialect {
  const dialect = DIALECTS[dataSource.options.type];
  if (!dialect) throw new Error(`unsupported database type "${dataSource.options.type}": use SQLite or PostgreSQL`);
  return dialect;
}
