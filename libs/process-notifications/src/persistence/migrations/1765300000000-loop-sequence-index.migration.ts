import type { MigrationInterface, QueryRunner } from 'typeorm';
import { journalWideStatement } from './journal-wide-statement.js';

/**
 * The index that serves a loop's event stream (`GET .../loops/:lid/events`, issue 37): one loop's
 * records of every kind (its notifications, their consumed records, its lifecycle records) from a
 * sequence on, in order. With only the session's index, each loop's stream read every other
 * loop's records of the session, so a session's streams cost its loop count times its records.
 */
export class LoopSequenceIndex1765300000000 implements MigrationInterface {
  name = 'LoopSequenceIndex1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await journalWideStatement(queryRunner, 'CREATE INDEX ix_pn_journal_loop_sequence ON pn_journal (session_id, loop_id, sequence)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX ix_pn_journal_loop_sequence');
  }
}
