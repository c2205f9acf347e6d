import type { MigrationInterface, QueryRunner } from 'typeorm';
import { journalWideStatement } from './journal-wide-statement.js';

/**
 * What the admin read API (spec section 12.1) answers from without scanning the journal:
 * - each loop's `unconsumed` count and its oldest unconsumed notification (sequence and
 *   `created_at`), kept by `JournalCounters` in the transaction of every record that changes them;
 * - each session's `last_sequence`, kept the same way;
 * - indexes for the pages (newest session and loop first, loops with unconsumed work) and for
 *   finding a notification by its command id across sessions, and a loop's notifications in
 *   journal order (the next oldest unconsumed after a consume).
 * The counts of an existing database are filled from the journal once, here. On PostgreSQL the
 * node heartbeat row also records when it was last renewed (`GET /v1/admin/nodes`).
 */
export class AdminCounts1765100000000 implements MigrationInterface {
  name = 'AdminCounts1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    await queryRunner.query('ALTER TABLE pn_loops ADD COLUMN unconsumed integer NOT NULL DEFAULT 0');
    await queryRunner.query('ALTER TABLE pn_loops ADD COLUMN oldest_unconsumed_sequence integer NULL');
    await queryRunner.query('ALTER TABLE pn_loops ADD COLUMN oldest_unconsumed_at varchar(32) NULL');
    await queryRunner.query('ALTER TABLE pn_sessions ADD COLUMN last_sequence integer NOT NULL DEFAULT 0');
    await journalWideStatement(
      queryRunner,
      "CREATE INDEX ix_pn_journal_loop_notifications ON pn_journal (session_id, loop_id, sequence) WHERE kind = 'process_notification'",
    );
    await journalWideStatement(
      queryRunner,
      "CREATE INDEX ix_pn_journal_command ON pn_journal (idempotency_id) WHERE kind = 'process_notification'",
    );
    await queryRunner.query('CREATE INDEX ix_pn_sessions_newest ON pn_sessions (created_at, session_id)');
    await queryRunner.query('CREATE INDEX ix_pn_loops_newest ON pn_loops (created_at, session_id, loop_id)');
    await queryRunner.query('CREATE INDEX ix_pn_loops_unconsumed ON pn_loops (created_at, session_id, loop_id) WHERE unconsumed > 0');
    // Once: every loop's notifications without a consumed record (ix_pn_journal_consumed).
    await journalWideStatement(
      queryRunner,
      `UPDATE pn_loops SET unconsumed = u.unconsumed, oldest_unconsumed_sequence = u.oldest
      FROM (
        SELECT j.session_id, j.loop_id, count(*) AS unconsumed, min(j.sequence) AS oldest FROM pn_journal j
        WHERE j.kind = 'process_notification' AND NOT EXISTS (
          SELECT 1 FROM pn_journal c
          WHERE c.session_id = j.session_id AND c.cause_command_id = j.idempotency_id AND c.kind = 'process_notification_consumed'
        )
        GROUP BY j.session_id, j.loop_id
      ) u
      WHERE pn_loops.session_id = u.session_id AND pn_loops.loop_id = u.loop_id`,
    );
    await journalWideStatement(
      queryRunner,
      `UPDATE pn_loops SET oldest_unconsumed_at = (
        SELECT j.created_at FROM pn_journal j WHERE j.sequence = pn_loops.oldest_unconsumed_sequence
      ) WHERE oldest_unconsumed_sequence IS NOT NULL`,
    );
    await journalWideStatement(
      queryRunner,
      `UPDATE pn_sessions SET last_sequence = m.last_sequence
      FROM (SELECT session_id, max(sequence) AS last_sequence FROM pn_journal GROUP BY session_id) m
      WHERE pn_sessions.session_id = m.session_id`,
    );
    if (postgres) await queryRunner.query('ALTER TABLE pn_nodes ADD COLUMN heartbeat_at timestamptz NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'postgres') await queryRunner.query('ALTER TABLE pn_nodes DROP COLUMN heartbeat_at');
    for (const index of [
      'ix_pn_loops_unconsumed',
      'ix_pn_loops_newest',
      'ix_pn_sessions_newest',
      'ix_pn_journal_command',
      'ix_pn_journal_loop_notifications',
    ]) {
      await queryRunner.query(`DROP INDEX ${index}`);
    }
    await queryRunner.query('ALTER TABLE pn_sessions DROP COLUMN last_sequence');
    await queryRunner.query('ALTER TABLE pn_loops DROP COLUMN oldest_unconsumed_at');
    await queryRunner.query('ALTER TABLE pn_loops DROP COLUMN oldest_unconsumed_sequence');
    await queryRunner.query('ALTER TABLE pn_loops DROP COLUMN unconsumed');
  }
}
