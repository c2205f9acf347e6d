import type { MigrationInterface, QueryRunner } from 'typeorm';
import { journalWideStatement } from './journal-wide-statement.js';

/**
 * The index that serves a session's journal pages (`journal?after=`) and event streams: the
 * session's records from a sequence on, in order. Without it a page walked the primary key
 * (every session's records) and filtered, so its time grew with the other sessions' size.
 */
export class SessionSequenceIndex1765100000500 implements MigrationInterface {
  name = 'SessionSequenceIndex1765100000500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await journalWideStatement(queryRunner, 'CREATE INDEX ix_pn_journal_session_sequence ON pn_journal (session_id, sequence)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX ix_pn_journal_session_sequence');
  }
}
