import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The index that finds a notification's consumed record now holds consumed records only. It held
 * every notification too (their cause is their own command id), so each append inserted into two
 * indexes keyed by a random id: on a file that doubled the pages every commit wrote (see
 * apps/bench). Restore, retention and consumption look up consumed records only, by a literal
 * kind the partial index matches, on SQLite and PostgreSQL alike.
 */
export class ConsumedIndex1764900000000 implements MigrationInterface {
  name = 'ConsumedIndex1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      "CREATE INDEX ix_pn_journal_consumed ON pn_journal (session_id, cause_command_id) WHERE kind = 'process_notification_consumed'",
    );
    await queryRunner.query('DROP INDEX ix_pn_journal_cause');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX ix_pn_journal_cause ON pn_journal (session_id, cause_command_id)');
    await queryRunner.query('DROP INDEX ix_pn_journal_consumed');
  }
}
