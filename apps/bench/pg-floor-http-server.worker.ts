import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { floorServer, type AppendOutcome, type FloorAppend, type FloorConfig } from './floor-notify.js';

/** `workerData` of this script: the floor's config and its PostgreSQL schema (created by the caller, empty). */
export interface PgFloorConfig extends FloorConfig {
  readonly postgresUrl: string;
  readonly schema: string;
  /** Connections in the pool (node-postgres' default, which the app's TypeORM pool also uses, is 10). */
  readonly poolSize: number;
}

// The little of node-postgres this script uses (the package ships no types, and none are installed).
interface PgClient {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  release(error?: Error): void;
}
interface PgPool {
  connect(): Promise<PgClient>;
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}
const { Pool } = createRequire(import.meta.url)('pg') as { Pool: new (options: Record<string, unknown>) => PgPool };

// The tables as the library's migration creates them on PostgreSQL.
const SCHEMA = `
  CREATE TABLE pn_journal (
    sequence SERIAL PRIMARY KEY,
    session_id varchar(36) NOT NULL,
    loop_id varchar(36),
    kind varchar(40) NOT NULL,
    idempotency_id varchar(80) NOT NULL,
    fingerprint varchar(64) NOT NULL,
    payload text NOT NULL,
    cause_command_id varchar(36),
    created_at varchar(32) NOT NULL
  );
  CREATE UNIQUE INDEX uq_pn_journal_idempotency ON pn_journal (idempotency_id, session_id);
  CREATE INDEX ix_pn_journal_loop_notifications ON pn_journal (session_id, loop_id, sequence) WHERE kind = 'process_notification';
  CREATE INDEX ix_pn_journal_loop_sequence ON pn_journal (session_id, loop_id, sequence);
  CREATE INDEX ix_pn_journal_session_sequence ON pn_journal (session_id, sequence);
  CREATE TABLE pn_sessions (session_id varchar(36) PRIMARY KEY, token_hash varchar(64) UNIQUE, created_at varchar(32) NOT NULL);
  CREATE TABLE pn_loops (
    session_id varchar(36) NOT NULL,
    loop_id varchar(36) NOT NULL,
    engine varchar(16) NOT NULL,
    state varchar(16) NOT NULL,
    created_at varchar(32) NOT NULL,
    PRIMARY KEY (session_id, loop_id)
  );
`;
const SELECT = 'SELECT sequence, fingerprint FROM pn_journal WHERE session_id = $1 AND idempotency_id = $2';
const INSERT = `INSERT INTO pn_journal (session_id, loop_id, kind, idempotency_id, fingerprint, payload, cause_command_id, created_at)
  VALUES ($1, $2, 'process_notification', $3, $4, $5, NULL, $6) RETURNING sequence`;
const UNIQUE_VIOLATION = '23505';

// The framework-free floor on PostgreSQL (see floor-notify.ts), in a worker thread: plain `pg`,
// a pool, and one transaction per request (BEGIN, SELECT the id, INSERT, COMMIT). No group
// commit, no session leases, no NOTIFY: what one node needs and nothing more.
const config = workerData as PgFloorConfig;
const pool = new Pool({
  connectionString: config.postgresUrl,
  max: config.poolSize,
  options: `-c search_path=${config.schema}`,
});
await pool.query(SCHEMA);

async function appendOnce(entry: FloorAppend): Promise<AppendOutcome> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const [existing] = (await client.query<{ sequence: number; fingerprint: string }>(SELECT, [entry.sessionId, entry.commandId])).rows;
    let outcome: AppendOutcome;
    if (existing) {
      outcome =
        existing.fingerprint === entry.fingerprint ? { sequence: existing.sequence, appended: false } : { collision: existing.sequence };
    } else {
      const values = [entry.sessionId, entry.loopId, entry.commandId, entry.fingerprint, entry.payload, entry.createdAt];
      outcome = { sequence: (await client.query<{ sequence: number }>(INSERT, values)).rows[0]!.sequence, appended: true };
    }
    await client.query('COMMIT');
    client.release();
    return outcome;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(error as Error);
    throw error;
  }
}

async function append(entry: FloorAppend): Promise<AppendOutcome> {
  try {
    return await appendOnce(entry);
  } catch (error) {
    // A concurrent request inserted the same id first: the unique index decided, read its record.
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    return appendOnce(entry);
  }
}

const server = floorServer(config, {
  addSession: async (sessionId, tokenHash, createdAt) =>
    void (await pool.query('INSERT INTO pn_sessions (session_id, token_hash, created_at) VALUES ($1, $2, $3)', [
      sessionId,
      tokenHash,
      createdAt,
    ])),
  addLoop: async (sessionId, loopId, engine, createdAt) =>
    void (await pool.query("INSERT INTO pn_loops (session_id, loop_id, engine, state, created_at) VALUES ($1, $2, $3, 'running', $4)", [
      sessionId,
      loopId,
      engine,
      createdAt,
    ])),
  append,
});
server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as AddressInfo).port }));
parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  server.closeAllConnections();
  server.close(() => void pool.end().then(() => parentPort!.postMessage('closed')));
});
