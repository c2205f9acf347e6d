import type { MigrationInterface, QueryRunner } from 'typeorm';
import { journalWideStatement } from './journal-wide-statement.js';

/**
 * The index that finds a notification's consumed record now holds consumed records only. It held
 * every record, so each append of a notification (which has no cause) also wrote a
 * (session, NULL) entry nothing looks up. Restore, retention and consumption ask for consumed
 * records only (by their kind, which the partial index matches); restore's probe of it for each
 * notification no longer reads the table.
 */
export class ConsumedIndex1764900000000 implements MigrationInterface {
  name = 'ConsumedIndex1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await journalWideStatement(
      queryRunner,
      "CREATE INDEX ix_pn_journal_consumed ON pn_journal (session_id, cause_command_id) WHERE kind = 'process_notification_consumed'",
    );
    await queryRunner.query('DROP INDEX ix_pn_journal_cause');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await journalWideStatement(queryRunner, 'CREATE INDEX ix_pn_journal_cause ON pn_journal (session_id, cause_command_id)');
    await queryRunner.query('DROP INDEX ix_pn_journal_consumed');
  }
}
