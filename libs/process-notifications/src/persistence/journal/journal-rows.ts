import type { DataSource, EntityManager } from 'typeorm';
import { CONSUMED_KIND } from './journal-record.entity.js';
import { consumedRecordOf } from './consumed-record.js';
import { LIFECYCLE_KINDS, type JournalKind } from '../../vocabulary/process-vocabulary.js';
import { JournalRecordEntity } from './journal-record.entity.js';
import type { SqliteConnection, SqliteStatement } from '../dialects/store-connection.js';
import type { StoreDialect } from '../dialects/store-dialect.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import { isSqliteUniqueViolation } from '../dialects/store-failure.js';

// The journal's columns, in the order of the table (the entity and the migration describe the
// same table for TypeORM); every hand-written statement of the library is in this file.
const COLUMNS = [
  'sequence',
  'session_id',
  'loop_id',
  'kind',
  'idempotency_id',
  'fingerprint',
  'payload',
  'cause_command_id',
  'created_at',
] as const;
type JournalRow = Record<(typeof COLUMNS)[number], string | number | null>;

/** The stored form of a dropped payload: JSON `null`, which the journal API shows as is. */
export const DROPPED_PAYLOAD = 'null';

/** A journaled notification still pending, as restore reads it. */
export interface PendingRow {
  readonly sequence: number;
  /** The canonical JSON payload (it names the session and the loop). */
  readonly payload: string;
}

/** A loop's stop record: what the loop held when it stopped. */
export interface LoopStopRow {
  readonly sessionId: string;
  readonly loopId: string;
  readonly pending: readonly string[];
}

const consumedExists = (alias: string) => `EXISTS (SELECT 1 FROM pn_journal c WHERE ${consumedRecordOf('c', alias)})`;

/**
 * The journal table's SQL and row mapping, for the journal writer, restore, retention and the
 * journal's reads. Hand-written statements: on the hot path TypeORM's query builder cost more CPU
 * than SQLite spent executing them (see apps/bench). Placeholders follow the driver; every method
 * takes the manager it runs on: the writer's transaction's, or a read's (restore's reads, {@link find}).
 */
export class JournalRows {
  private readonly findSql: string;
  private readonly insertSql: string;
  private readonly insertNewSql: string;
  private readonly insertManySql: string;
  private readonly pruneSql: string;
  private readonly sessionParameter: string;
  private readonly dialect: StoreDialect;
  private readonly prepared = new WeakMap<SqliteConnection, Map<string, SqliteStatement>>();
  /**
   * True where statements are round trips (PostgreSQL, {@link StoreDialect.insertsFirst}): an
   * append's insert skips an id journaled already in the statement itself
   * ({@link insertUnlessJournaled}), and a batch's appends may go in one statement
   * ({@link insertManyUnlessJournaled}); elsewhere the insert's conflict is caught
   * ({@link insertUnlessConflicting}). Either way the record under the id is read only when one is there.
   */
  readonly insertFirst: boolean;

  /**
   * @param direct false: the hot path's statements go through TypeORM's `manager.query` too (the
   *   library's own path, what journal-rows.spec.ts proves the direct statements against).
   */
  constructor(
    dataSource: DataSource,
    private readonly direct = true,
  ) {
    const p = (index: number) => dataSource.driver.createParameter(`p${index}`, index);
    this.sessionParameter = p(0);
    this.dialect = storeDialectOf(dataSource);
    const written = COLUMNS.filter((column) => column !== 'sequence');
    this.findSql = `SELECT ${COLUMNS.join(', ')} FROM pn_journal WHERE session_id = ${p(0)} AND idempotency_id = ${p(1)}`;
    this.insertSql = `INSERT INTO pn_journal (${written.join(', ')}) VALUES (${written.map((_, i) => p(i)).join(', ')})${this.dialect.insertReturning}`;
    this.insertFirst = this.dialect.insertsFirst;
    // Where inserts go first (the dialect's statements): an id journaled already is skipped, left to find().
    const insertFirst = this.dialect.insertFirstStatements(p, written);
    this.insertNewSql = insertFirst?.one ?? '';
    this.insertManySql = insertFirst?.many ?? '';
    // Lifecycle records, consumption records and consumed notifications; never a pending
    // notification, never a loop's stop record (restore needs it).
    this.pruneSql = `SELECT sequence FROM pn_journal j WHERE created_at < ${p(0)} AND payload <> '${DROPPED_PAYLOAD}' AND (
      kind IN (${[...LIFECYCLE_KINDS, CONSUMED_KIND].map((kind) => `'${kind}'`).join(', ')})
      OR (kind = 'process_notification' AND ${consumedExists('j')})
    ) ORDER BY sequence LIMIT ${p(1)}`;
  }

  /** The record of a session under an idempotency id, if any. */
  async find(manager: EntityManager, sessionId: string, idempotencyId: string): Promise<JournalRecordEntity | undefined> {
    const sqlite = this.sqliteStatement(manager, this.findSql);
    const [row] = (
      sqlite ? sqlite.all(sessionId, idempotencyId) : await manager.query(this.findSql, [sessionId, idempotencyId])
    ) as JournalRow[];
    return row ? recordFromRow(row) : undefined;
  }

  /** Inserts a record (everything but its sequence) and returns it with the sequence given. */
  async insert(manager: EntityManager, record: Omit<JournalRecordEntity, 'sequence'>): Promise<JournalRecordEntity> {
    const values = valuesOf(record);
    const sqlite = this.sqliteStatement(manager, this.insertSql);
    const sequence = sqlite
      ? Number(sqlite.run(...values).lastInsertRowid)
      : this.dialect.insertedSequence(await manager.query(this.insertSql, values));
    return Object.assign(new JournalRecordEntity(), record, { sequence });
  }

  /**
   * Inserts a record unless one is journaled under its id in its session already (then
   * undefined: read it with {@link find}), where statements run in this thread (SQLite): the
   * INSERT itself probes the unique index, and the conflict undoes it alone (a new id, nearly
   * every append, costs one statement, not a lookup and an insert; the sequence drawn is taken
   * back with it).
   */
  async insertUnlessConflicting(
    manager: EntityManager,
    record: Omit<JournalRecordEntity, 'sequence'>,
  ): Promise<JournalRecordEntity | undefined> {
    try {
      return await this.insert(manager, record);
    } catch (error) {
      if (isSqliteUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  /**
   * Inserts a record unless one is journaled under its id in its session already (then
   * undefined: read it with {@link find}). Where {@link insertFirst} only.
   */
  async insertUnlessJournaled(
    manager: EntityManager,
    record: Omit<JournalRecordEntity, 'sequence'>,
  ): Promise<JournalRecordEntity | undefined> {
    const [row] = (await manager.query(this.insertNewSql, valuesOf(record))) as Array<{ sequence: number | string }>;
    return row === undefined ? undefined : Object.assign(new JournalRecordEntity(), record, { sequence: Number(row.sequence) });
  }

  /**
   * Inserts records (no two with one id) in one statement, in order, skipping any whose id is
   * journaled in its session already; returns those inserted, with their sequences. Where
   * {@link insertFirst} only.
   */
  async insertManyUnlessJournaled(
    manager: EntityManager,
    records: ReadonlyArray<Omit<JournalRecordEntity, 'sequence'>>,
  ): Promise<Map<Omit<JournalRecordEntity, 'sequence'>, JournalRecordEntity>> {
    const columns = records.map(valuesOf);
    const rows = (await manager.query(
      this.insertManySql,
      columns[0]!.map((_, c) => columns.map((values) => values[c])),
    )) as Array<{ sequence: number | string; session_id: string; idempotency_id: string }>;
    const byKey = new Map(records.map((record) => [`${record.sessionId}\n${record.idempotencyId}`, record]));
    const inserted = new Map<Omit<JournalRecordEntity, 'sequence'>, JournalRecordEntity>();
    for (const row of rows) {
      const record = byKey.get(`${row.session_id}\n${row.idempotency_id}`)!;
      inserted.set(record, Object.assign(new JournalRecordEntity(), record, { sequence: Number(row.sequence) }));
    }
    return inserted;
  }

  /**
   * Calls `visit` for every journaled notification without a consumed record, in journal order
   * (each one probe of the unique index for its consumed record): all sessions', or one
   * session's. On SQLite the rows are streamed from the statement, never gathered in one array
   * (whose garbage collection cost restore about a quarter of its time with a million records).
   */
  async forEachPending(manager: EntityManager, sessionId: string | undefined, visit: (row: PendingRow) => void): Promise<void> {
    // session_id and loop_id are in the payload too: reading them again would only cost strings.
    const sql = `SELECT j.sequence, j.payload FROM pn_journal j
       WHERE ${this.ofSession('j', sessionId)} j.kind = 'process_notification' AND NOT ${consumedExists('j')} ORDER BY j.sequence`;
    const parameters = sessionId === undefined ? [] : [sessionId];
    const sqlite = this.dialect.directConnection(manager.connection);
    const rows: Iterable<readonly unknown[]> = sqlite
      ? sqlite
          .prepare(sql)
          .raw()
          .iterate(...parameters)
      : ((await manager.query(sql, parameters)) as JournalRow[]).map((row) => [row.sequence, row.payload]);
    for (const [sequence, payload] of rows) visit({ sequence: Number(sequence), payload: String(payload) });
  }

  /** Every loop stop record: all sessions', or one session's. */
  async loopStops(manager: EntityManager, sessionId?: string): Promise<LoopStopRow[]> {
    const kind: JournalKind = 'loop_stopped';
    const rows = (await manager.query(
      `SELECT session_id, loop_id, payload FROM pn_journal j WHERE ${this.ofSession('j', sessionId)} kind = '${kind}'`,
      sessionId === undefined ? [] : [sessionId],
    )) as JournalRow[];
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      loopId: String(row.loop_id),
      pending: (JSON.parse(String(row.payload)) as { pending: string[] }).pending,
    }));
  }

  // The hot path's statements. On SQLite they run on the connection TypeORM holds, inside the
  // writer's transaction, as prepared statements kept per connection: TypeORM's query wrapper
  // (subscriber broadcasts, three awaits, a result object) cost more than SQLite spent on them
  // (measured in apps/bench: 10 to 20 % of notify throughput in memory, see docs/benchmarks.md).
  private sqliteStatement(manager: EntityManager, sql: string): SqliteStatement | undefined {
    if (!this.direct) return undefined;
    const sqlite = this.dialect.directConnection(manager.connection);
    if (!sqlite) return undefined;
    let statements = this.prepared.get(sqlite);
    if (!statements) this.prepared.set(sqlite, (statements = new Map()));
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = sqlite.prepare(sql)));
    return statement;
  }

  // The condition (and its AND) that keeps a query to one session, or nothing for all sessions.
  private ofSession(alias: string, sessionId: string | undefined): string {
    return sessionId === undefined ? '' : `${alias}.session_id = ${this.sessionParameter} AND`;
  }

  /** Drops up to `limit` prunable payloads older than `cutoff` (RFC 3339, UTC); returns how many. */
  async dropPayloads(manager: EntityManager, cutoff: string, limit: number): Promise<number> {
    const rows = (await manager.query(this.pruneSql, [cutoff, limit])) as JournalRow[];
    if (rows.length === 0) return 0;
    await manager.query(
      `UPDATE pn_journal SET payload = '${DROPPED_PAYLOAD}' WHERE sequence IN (${rows.map((row) => Number(row.sequence)).join(', ')})`,
    );
    return rows.length;
  }
}

// The written columns' values, in the order of the INSERT statements.
function valuesOf(record: Omit<JournalRecordEntity, 'sequence'>): Array<string | null> {
  return [
    record.sessionId,
    record.loopId,
    record.kind,
    record.idempotencyId,
    record.fingerprint,
    record.payload,
    record.causeCommandId,
    record.createdAt,
  ];
}

function recordFromRow(row: JournalRow): JournalRecordEntity {
  return Object.assign(new JournalRecordEntity(), {
    sequence: Number(row.sequence),
    sessionId: row.session_id,
    loopId: row.loop_id,
    kind: row.kind,
    idempotencyId: row.idempotency_id,
    fingerprint: row.fingerprint,
    payload: row.payload,
    causeCommandId: row.cause_command_id,
    createdAt: row.created_at,
  });
}
