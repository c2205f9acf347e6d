import type { MigrationInterface, QueryRunner } from 'typeorm';
import { journalWideStatement } from './journal-wide-statement.js';

/**
 * A notification's consumed record is found by its own id (`consumed:<command id>`, one probe of
 * the journal's unique index), so the index of consumed records by cause goes (issue 46). Its
 * entries were keyed by random command ids: each consume wrote one more random page of it, about
 * a fifth of the WAL pages a commit of notifications and their consumes wrote (185 to 150 a
 * 48-record commit, replayed on a 33,000-record journal).
 */
export class ConsumedById1765500000000 implements MigrationInterface {
  name = 'ConsumedById1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX ix_pn_journal_consumed');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await journalWideStatement(
      queryRunner,
      "CREATE INDEX ix_pn_journal_consumed ON pn_journal (session_id, cause_command_id) WHERE kind = 'process_notification_consumed'",
    );
  }
}
