import type { MigrationInterface, QueryRunner } from 'typeorm';
import { journalWideStatement } from './journal-wide-statement.js';

/**
 * The journal's unique index leads with the record's id, then its session (issue 46): it still
 * makes an id unique within its session and finds a record by both, and now also finds a command
 * id in every session (the admin API's `GET /v1/admin/notifications/:command_id`), which had an
 * index of its own. Its keys were random command ids too: each notification wrote one more random
 * page of it (a 48-record commit of notifications and their consumes, replayed on a
 * 33,000-record journal: 207 WAL frames, 177 with this index order and without that one).
 * The unique index is rebuilt once, at the upgrade: a read and sort of the whole journal's ids,
 * longer than a statement may take on PostgreSQL's connections for a large journal, so it runs
 * unbounded (`journalWideStatement`).
 */
export class UniqueIdFirst1765500000500 implements MigrationInterface {
  name = 'UniqueIdFirst1765500000500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX uq_pn_journal_idempotency');
    await journalWideStatement(queryRunner, 'CREATE UNIQUE INDEX uq_pn_journal_idempotency ON pn_journal (idempotency_id, session_id)');
    await queryRunner.query('DROP INDEX ix_pn_journal_command');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await journalWideStatement(
      queryRunner,
      "CREATE INDEX ix_pn_journal_command ON pn_journal (idempotency_id) WHERE kind = 'process_notification'",
    );
    await queryRunner.query('DROP INDEX uq_pn_journal_idempotency');
    await journalWideStatement(queryRunner, 'CREATE UNIQUE INDEX uq_pn_journal_idempotency ON pn_journal (session_id, idempotency_id)');
  }
}
