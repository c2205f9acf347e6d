import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { managerOf, type StoreTransaction } from '../transaction/store-transaction.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import type { ProcessLifecycleRecord } from '../../model/process-lifecycle-record.interface.js';
import { OUTCOME_KINDS, type OutcomeKind } from '../../vocabulary/process-vocabulary.js';
import { ProcessOutcomeEntity } from './process-outcome.entity.js';
import type { ProcessOutcome } from '../../model/process-outcome.interface.js';

// Most ids looked up by key in one statement, well under every driver's bound-parameter limit.
const LOOKUP_LIMIT = 500;

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
  private readonly linkSql: string;

  constructor(
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
    private readonly journal: JournalWriter,
  ) {
    // One statement text, so the connection's statement cache prepares it once (the query
    // builder's insert was prepared anew for every record, a lifecycle POST's costliest statement).
    // The first journaled record wins: a later one for the same command changes nothing.
    const p = (index: number) => dataSource.driver.createParameter(`p${index}`, index);
    this.linkSql = `INSERT INTO pn_process_outcomes (session_id, command_id, sequence, event_id, kind, has_exit_code,
      exit_code, diagnostic, signal, process_started_at, process_finished_at)
      VALUES (${Array.from({ length: 11 }, (_, index) => p(index)).join(', ')}) ON CONFLICT DO NOTHING`;
  }

  /**
   * Inside the transaction that journaled `record` (a new record, at `sequence`): makes it the
   * outcome of its `command_id` unless an earlier record already is. A record without
   * `command_id` (or of another kind) links nothing.
   */
  async link(store: StoreTransaction, sessionId: string, sequence: number, record: ProcessLifecycleRecord): Promise<void> {
    if (record.command_id === undefined || !isOutcomeKind(record.kind)) return;
    await managerOf(store).query(this.linkSql, [
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
    ]);
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
