import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { JournalRecordEntity } from '../journal/journal-record.entity.js';
import { LoopEntity } from '../sessions/loop.entity.js';
import { SessionEntity } from '../sessions/session.entity.js';
import { InitialSchema1764450000000 } from '../migrations/1764450000000-initial-schema.migration.js';
import { SessionLeases1764800000000 } from '../migrations/1764800000000-session-leases.migration.js';
import { ConsumedIndex1764900000000 } from '../migrations/1764900000000-consumed-index.migration.js';
import { ProcessOutcomes1765000000000 } from '../migrations/1765000000000-process-outcomes.migration.js';
import { ProcessOutcomeEntity } from '../outcomes/process-outcome.entity.js';
import { AdminCounts1765100000000 } from '../migrations/1765100000000-admin-counts.migration.js';
import { SessionSequenceIndex1765100000500 } from '../migrations/1765100000500-session-sequence-index.migration.js';
import { SessionClosing1765200000000 } from '../migrations/1765200000000-session-closing.migration.js';
import { Refusals1765200000700 } from '../migrations/1765200000700-refusals.migration.js';
import { LoopSequenceIndex1765300000000 } from '../migrations/1765300000000-loop-sequence-index.migration.js';
import { OutcomeSignal1765400000000 } from '../migrations/1765400000000-outcome-signal.migration.js';
import { ConsumedById1765500000000 } from '../migrations/1765500000000-consumed-by-id.migration.js';
import { UniqueIdFirst1765500000500 } from '../migrations/1765500000500-unique-id-first.migration.js';

/** The default database: an embedded SQLite file. */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/process-notifications.db';

export const PN_ENTITIES = [JournalRecordEntity, SessionEntity, LoopEntity, ProcessOutcomeEntity];
export const PN_MIGRATIONS = [
  InitialSchema1764450000000,
  SessionLeases1764800000000,
  ConsumedIndex1764900000000,
  ProcessOutcomes1765000000000,
  AdminCounts1765100000000,
  SessionSequenceIndex1765100000500,
  SessionClosing1765200000000,
  Refusals1765200000700,
  LoopSequenceIndex1765300000000,
  OutcomeSignal1765400000000,
  ConsumedById1765500000000,
  UniqueIdFirst1765500000500,
];

/**
 * Turns a `PN_DATABASE_URL`-style URL (`sqlite:<path>`, `sqlite::memory:`, `postgres://...`)
 * into TypeORM options. The schema always comes from the migrations, never `synchronize`.
 */
export function dataSourceOptionsFromUrl(url: string = DEFAULT_DATABASE_URL): DataSourceOptions {
  const common = {
    entities: PN_ENTITIES,
    migrations: PN_MIGRATIONS,
    migrationsRun: true,
    synchronize: false,
    logging: false,
  } as const;
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return {
      type: 'postgres',
      url,
      ...common,
      // Bounded waits: a stalled or partitioned server fails a call within seconds (the journal
      // writer's deadline is 5 s) instead of holding it, and a transaction left idle (its node
      // froze, or gave it up while its COMMIT was still on the way) is ended by the server within
      // 2 s, before a successor waiting on its session's lease row (statement_timeout) gives up:
      // an abandoned transaction never commits after the session's next one.
      connectTimeoutMS: 3_000,
      extra: {
        query_timeout: 4_000,
        statement_timeout: 3_000,
        idle_in_transaction_session_timeout: 2_000,
        keepAlive: true,
      },
    };
  }
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (!path) throw new Error(`database URL "${url}" names no file`);
    const memory = path === ':memory:';
    if (!memory) mkdirSync(dirname(path), { recursive: true });
    return {
      type: 'better-sqlite3',
      database: path,
      ...common,
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        if (!memory) db.pragma('journal_mode = WAL');
        // FULL: a committed append survives power loss, not only a process crash. The journal
        // writer's own connection switches to NORMAL and syncs the WAL itself after each COMMIT,
        // off the event loop's thread (JournalDurability): the same guarantee for what it answers.
        db.pragma('synchronous = FULL');
        // A file locked by another process fails a write within seconds (the wait blocks the thread).
        db.pragma('busy_timeout = 2000');
      },
    };
  }
  throw new Error(`unsupported database URL "${url}": use sqlite:<path>, sqlite::memory: or postgres://...`);
}
