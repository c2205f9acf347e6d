import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { JournalKind } from '../../vocabulary/process-vocabulary.js';

/** Kind of the record that marks a notification consumed (found by its id, `consumedIdOf`). */
export const CONSUMED_KIND = 'process_notification_consumed' satisfies JournalKind;

/** One append-only journal record. The sequence totally orders the journal. */
@Entity({ name: 'pn_journal' })
// An id once per session; its id first, so it also finds a command id in every session (migration 1765500000500).
@Index('uq_pn_journal_idempotency', ['idempotencyId', 'sessionId'], { unique: true })
// A session's records in order: journal pages and event streams (migration 1765100000500).
@Index('ix_pn_journal_session_sequence', ['sessionId', 'sequence'])
// One loop's records in order: its event stream (migration 1765300000000).
@Index('ix_pn_journal_loop_sequence', ['sessionId', 'loopId', 'sequence'])
export class JournalRecordEntity {
  @PrimaryGeneratedColumn('increment', { name: 'sequence', type: 'integer' })
  sequence: number;

  @Column({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ name: 'loop_id', type: 'varchar', length: 36, nullable: true })
  loopId: string | null;

  @Column({ name: 'kind', type: 'varchar', length: 40 })
  kind: JournalKind;

  @Column({ name: 'idempotency_id', type: 'varchar', length: 80 })
  idempotencyId: string;

  /** SHA-256 (hex) of kind plus canonical payload. */
  @Column({ name: 'fingerprint', type: 'varchar', length: 64 })
  fingerprint: string;

  /** Canonical JSON of the persisted payload (fixed key order, UUIDs lower-cased). */
  @Column({ name: 'payload', type: 'text' })
  payload: string;

  @Column({ name: 'cause_command_id', type: 'varchar', length: 36, nullable: true })
  causeCommandId: string | null;

  /** Server time of the append, RFC 3339 in UTC. */
  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;
}
