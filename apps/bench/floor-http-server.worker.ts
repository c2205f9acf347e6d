import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { JOURNAL_SCHEMA } from './raw-sqlite-floor.rows.js';
import { floorServer, type AppendOutcome, type FloorAppend, type FloorConfig } from './floor-notify.js';

/** `workerData` of this script: the floor's config and its SQLite database. */
export interface SqliteFloorConfig extends FloorConfig {
  /** A file path, or `:memory:`. */
  readonly database: string;
}

// The sessions and loops tables, beside the journal's, as the library's migration creates them.
const SCHEMA = `
  ${JOURNAL_SCHEMA}
  CREATE TABLE pn_sessions (
    session_id varchar(36) PRIMARY KEY NOT NULL,
    token_hash varchar(64) UNIQUE,
    created_at varchar(32) NOT NULL
  );
  CREATE TABLE pn_loops (
    session_id varchar(36) NOT NULL,
    loop_id varchar(36) NOT NULL,
    engine varchar(16) NOT NULL,
    state varchar(16) NOT NULL,
    created_at varchar(32) NOT NULL,
    PRIMARY KEY (session_id, loop_id)
  );
`;

// The framework-free floor on SQLite (see floor-notify.ts), in a worker thread like the app
// (http-server.worker.ts): better-sqlite3 with the library's pragmas, and one synchronous
// transaction per request, so there is no group commit: each request pays its own fsync on a file.
const config = workerData as SqliteFloorConfig;
const db = new Database(config.database);
if (config.database !== ':memory:') db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 2000');
db.exec(SCHEMA);

const select = db.prepare<[string, string], { sequence: number; fingerprint: string }>(
  'SELECT sequence, fingerprint FROM pn_journal WHERE session_id = ? AND idempotency_id = ?',
);
const insert = db.prepare(
  `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at)
   VALUES (?, ?, 'process_notification', ?, ?, ?, NULL, ?)`,
);
const append = db.transaction((entry: FloorAppend): AppendOutcome => {
  const existing = select.get(entry.sessionId, entry.commandId);
  if (existing)
    return existing.fingerprint === entry.fingerprint ? { sequence: existing.sequence, appended: false } : { collision: existing.sequence };
  const { lastInsertRowid } = insert.run(entry.sessionId, entry.loopId, entry.commandId, entry.fingerprint, entry.payload, entry.createdAt);
  return { sequence: Number(lastInsertRowid), appended: true };
});
const insertSession = db.prepare('INSERT INTO pn_sessions (session_id, token_hash, created_at) VALUES (?, ?, ?)');
const insertLoop = db.prepare("INSERT INTO pn_loops (session_id, loop_id, engine, state, created_at) VALUES (?, ?, ?, 'running', ?)");

const server = floorServer(config, {
  addSession: (sessionId, tokenHash, createdAt) => void insertSession.run(sessionId, tokenHash, createdAt),
  addLoop: (sessionId, loopId, engine, createdAt) => void insertLoop.run(sessionId, loopId, engine, createdAt),
  // BEGIN IMMEDIATE, as the journal writer begins on SQLite.
  append: (entry) => append.immediate(entry),
});
server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as AddressInfo).port }));
parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  server.closeAllConnections();
  server.close(() => {
    db.close();
    parentPort!.postMessage('closed');
  });
});
