import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { managerOf, type StoreTransaction } from '../transaction/store-transaction.js';
import { storeDialectOf } from '../dialects/store-dialects.js';
import type { BeforeCommit, JournalTransaction } from '../journal/journal-transaction.interface.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import type { ProcessLifecycleRecord } from '../../model/process-lifecycle-record.interface.js';
import { OUTCOME_KINDS, type OutcomeKind } from '../../vocabulary/process-vocabulary.js';
import { ProcessOutcomeEntity } from './process-outcome.entity.js';
import type { ProcessOutcome } from '../../model/process-outcome.interface.js';

// Most ids looked up by key in one statement, well under every driver's bound-parameter limit.
const LOOKUP_LIMIT = 500;
// A link's columns, and most links one PostgreSQL statement writes (well under its 65,535 parameters).
const OUTCOME_COLUMNS = 11;
const LINKS_PER_STATEMENT = 500;

/** A link's row: its columns' values in the order of the insert's columns. */
type OutcomeRow = ReadonlyArray<string | number | boolean | null>;

function isOutcomeKind(kind: string): kind is OutcomeKind {
  return (OUTCOME_KINDS as readonly string[]).includes(kind);
}

function outcomeOf(row: ProcessOutcomeEntity): ProcessOutcome {
  return {
    eventId: row.eventId,
    kind: row.kind,
    sequence: Number(row.sequence),
    hasExitCode: Boolean(row.hasExitCode),
    exitCode: row.exitCode === null ? null : Number(row.exitCode),
    diagnostic: row.diagnostic,
    signal: row.signal,
    processStartedAt: row.processStartedAt,
    processFinishedAt: row.processFinishedAt,
  };
}

/**
 * The link between a completion notification and the lifecycle record that says how its process
 * ended (section 14), kept in `pn_process_outcomes` by (session, command id). The first
 * journaled `completed` or `lost` record naming a command id is its outcome: the row is written
 * in that record's transaction and never replaced, so every node, and a restarted one, reads the
 * same answer, whether the notification was journaled before or after the record.
 */
@Injectable()
export class ProcessOutcomes {
  // SQLite writes each link at once, PostgreSQL a batch's links together (see link).
  private readonly inProcess: boolean;
  private readonly parameter: (index: number) => string;
  private readonly linkSql = new Map<number, string>();
  // The batch's links, written once after its last unit (see BeforeCommit).
  private readonly links: BeforeCommit<OutcomeRow> = { write: (store, rows) => this.insert(store, rows) };

  constructor(
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    private readonly journal: JournalWriter,
  ) {
    this.inProcess = storeDialectOf(dataSource).inProcess;
    this.parameter = (index: number) => dataSource.driver.createParameter(`p${index}`, index);
  }

  /**
   * Inside the transaction that journaled `record` (a new record, at `sequence`): makes it the
   * outcome of its `command_id` unless an earlier record already is. A record without
   * `command_id` (or of another kind) links nothing. On PostgreSQL the link is written with the
   * batch's others before it commits; on SQLite at once, since there a read queued in the same
   * batch (an in-memory database's) must find the record with its outcome, and a statement costs
   * no round trip.
   */
  async link(
    store: StoreTransaction,
    journal: JournalTransaction,
    sessionId: string,
    sequence: number,
    record: ProcessLifecycleRecord,
  ): Promise<void> {
    if (record.command_id === undefined || !isOutcomeKind(record.kind)) return;
    const row = [
      sessionId,
      record.command_id,
      sequence,
      record.event_id,
      record.kind,
      record.has_exit_code === true,
      record.exit_code ?? null,
      record.diagnostic ?? null,
      record.signal ?? null,
      record.process_started_at ?? null,
      record.process_finished_at ?? null,
    ];
    if (this.inProcess) await this.insert(store, [row]);
    else journal.beforeCommit(this.links, row);
  }

  // In the order given, which is sequence order: the first journaled record wins, a later one
  // for the same command (in this statement or after it) changes nothing.
  private async insert(store: StoreTransaction, rows: readonly OutcomeRow[]): Promise<void> {
    for (let first = 0; first < rows.length; first += LINKS_PER_STATEMENT) {
      const chunk = rows.slice(first, first + LINKS_PER_STATEMENT);
      await managerOf(store).query(this.sqlFor(chunk.length), chunk.flat());
    }
  }

  private sqlFor(count: number): string {
    let sql = this.linkSql.get(count);
    if (sql === undefined) {
      const values = Array.from({ length: count }, (_, row) => {
        const columns = Array.from({ length: OUTCOME_COLUMNS }, (_, column) => this.parameter(row * OUTCOME_COLUMNS + column));
        return `(${columns.join(', ')})`;
      });
      sql = `INSERT INTO pn_process_outcomes (session_id, command_id, sequence, event_id, kind, has_exit_code,
        exit_code, diagnostic, signal, process_started_at, process_finished_at)
        VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`;
      // Counts seen are few (a batch's links); kept only while small.
      if (this.linkSql.size < 64) this.linkSql.set(count, sql);
    }
    return sql;
  }

  /** The outcomes known for these command ids of a session (lower case), by command id. */
  async of(sessionId: string, commandIds: readonly string[]): Promise<Map<string, ProcessOutcome>> {
    const outcomes = new Map<string, ProcessOutcome>();
    if (commandIds.length === 0) return outcomes;
    // Both read the primary key: the ids themselves, or for a long list (a loop restored with
    // more than its capacity) the session's range of it in one statement.
    const rows = await this.journal.read((store) =>
      managerOf(store).find(ProcessOutcomeEntity, {
        where: commandIds.length <= LOOKUP_LIMIT ? { sessionId, commandId: In([...commandIds]) } : { sessionId },
      }),
    );
    const wanted = commandIds.length <= LOOKUP_LIMIT ? undefined : new Set(commandIds);
    for (const row of rows) if (!wanted || wanted.has(row.commandId)) outcomes.set(row.commandId, outcomeOf(row));
    return outcomes;
  }
}
