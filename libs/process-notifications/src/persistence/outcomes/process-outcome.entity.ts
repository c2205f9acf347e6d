import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OutcomeKind } from '../../vocabulary/process-vocabulary.js';

/**
 * The outcome of a command (migration 1765000000000): one row per (session, command id), written
 * in the transaction that journals the first `completed` or `lost` record naming that id, so the
 * pending views find it by key, whichever of the notification and the record came first. Its own
 * copy of the record's outcome fields: retention may drop the record's payload, not the outcome.
 */
@Entity({ name: 'pn_process_outcomes' })
export class ProcessOutcomeEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @PrimaryColumn({ name: 'command_id', type: 'varchar', length: 36 })
  commandId: string;

  /** Journal sequence of the lifecycle record. */
  @Column({ name: 'sequence', type: 'integer' })
  sequence: number;

  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId: string;

  @Column({ name: 'kind', type: 'varchar', length: 40 })
  kind: OutcomeKind;

  @Column({ name: 'has_exit_code', type: 'boolean' })
  hasExitCode: boolean;

  @Column({ name: 'exit_code', type: 'integer', nullable: true })
  exitCode: number | null;

  @Column({ name: 'diagnostic', type: 'text', nullable: true })
  diagnostic: string | null;

  /** The signal that ended the command (migration 1765400000000); null when the record named none. */
  @Column({ name: 'signal', type: 'varchar', length: 16, nullable: true })
  signal: string | null;

  @Column({ name: 'process_started_at', type: 'text', nullable: true })
  processStartedAt: string | null;

  @Column({ name: 'process_finished_at', type: 'text', nullable: true })
  processFinishedAt: string | null;
}
