import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { PN_CONNECTION } from '../../constants.js';
import { SessionLeases } from '../leases/session-leases.service.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { managerOf } from '../transaction/store-transaction.js';

/**
 * How many refusals the database keeps, cluster-wide: the newest ones. Every write prunes the
 * rest, so a flood of refusals cannot fill the disk.
 */
export const REFUSAL_RETENTION = 1000;

/** One refusal as stored: metadata only (ids, codes, field names), never a payload value. */
export interface RefusalRow {
  /** When the node answered it (ISO 8601). */
  readonly at: string;
  readonly code: string;
  readonly cause: string | null;
  readonly sessionId: string;
  readonly loopId: string | null;
  readonly commandId: string | null;
  readonly eventId: string | null;
  /** A collision's original: its journal sequence. */
  readonly originalSequence: number | null;
  /** A collision: the names of the fields that differ from the original's, sorted. */
  readonly differingFields: readonly string[] | null;
  /** The node that answered. */
  readonly nodeId: string;
}

type Row = Record<string, unknown>;
const COLUMNS = [
  'at',
  'code',
  'cause',
  'session_id',
  'loop_id',
  'command_id',
  'event_id',
  'original_sequence',
  'differing_fields',
  'node_id',
] as const;
const SELECT = `SELECT ${COLUMNS.join(', ')} FROM pn_refusals`;

/**
 * The refusals table (`pn_refusals`): the only place its SQL lives. Writes go through the
 * journal writer's queue (one transaction per batch of refusals, SQLite's single writer kept),
 * reads through its read connection.
 */
@Injectable()
export class RefusalStore {
  private readonly p: (index: number) => string;
  /** This node's id, as the nodes list shows it: what a refusal it answers records. */
  readonly nodeId: string;

  constructor(
    private readonly journal: JournalWriter,
    leases: SessionLeases,
    @InjectDataSource(PN_CONNECTION) dataSource: DataSource,
  ) {
    this.p = (index) => dataSource.driver.createParameter(`p${index}`, index);
    this.nodeId = leases.nodeId;
  }

  /** Stores `refusals` (oldest first) in one transaction, then drops all but the newest {@link REFUSAL_RETENTION}. */
  async save(refusals: readonly RefusalRow[]): Promise<void> {
    if (refusals.length === 0) return;
    const parameters: unknown[] = [];
    const tuples = refusals.map((refusal) => {
      const values = [
        refusal.at,
        refusal.code,
        refusal.cause,
        refusal.sessionId,
        refusal.loopId,
        refusal.commandId,
        refusal.eventId,
        refusal.originalSequence,
        refusal.differingFields === null ? null : refusal.differingFields.join(','),
        refusal.nodeId,
      ];
      return `(${values.map((value) => this.p(parameters.push(value) - 1)).join(', ')})`;
    });
    await this.journal.write(async (store) => {
      const manager = managerOf(store);
      await manager.query(`INSERT INTO pn_refusals (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, parameters);
      // Ids grow with every insert: all below the newest REFUSAL_RETENTION go.
      await manager.query(
        `DELETE FROM pn_refusals WHERE id <= (SELECT id FROM pn_refusals ORDER BY id DESC LIMIT 1 OFFSET ${REFUSAL_RETENTION})`,
      );
    });
  }

  /** The newest `limit` refusals, newest first. */
  async recent(limit: number): Promise<RefusalRow[]> {
    const rows = await this.journal.read(
      (store) => managerOf(store).query(`${SELECT} ORDER BY id DESC LIMIT ${this.p(0)}`, [limit]) as Promise<Row[]>,
    );
    return rows.map(refusalOf);
  }

  /** The refusals of deliveries with this command id (lower case), newest first. */
  async ofCommand(commandId: string): Promise<RefusalRow[]> {
    const rows = await this.journal.read(
      (store) => managerOf(store).query(`${SELECT} WHERE command_id = ${this.p(0)} ORDER BY id DESC`, [commandId]) as Promise<Row[]>,
    );
    return rows.map(refusalOf);
  }
}

function refusalOf(row: Row): RefusalRow {
  const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
  const fields = text(row.differing_fields);
  return {
    at: String(row.at),
    code: String(row.code),
    cause: text(row.cause),
    sessionId: String(row.session_id),
    loopId: text(row.loop_id),
    commandId: text(row.command_id),
    eventId: text(row.event_id),
    originalSequence: row.original_sequence === null ? null : Number(row.original_sequence),
    differingFields: fields === null ? null : fields === '' ? [] : fields.split(','),
    nodeId: String(row.node_id),
  };
}
