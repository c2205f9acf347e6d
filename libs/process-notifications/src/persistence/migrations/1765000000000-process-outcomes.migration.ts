import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Outcomes of commands (section 14), keyed by (session, command id): the pending views look a
 * notification's outcome up by its primary key instead of searching the journal. Records
 * journaled before this migration carry no command id, so there is nothing to fill in.
 */
export class ProcessOutcomes1765000000000 implements MigrationInterface {
  name = 'ProcessOutcomes1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'pn_process_outcomes',
        columns: [
          { name: 'session_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'command_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'sequence', type: 'integer' },
          { name: 'event_id', type: 'varchar', length: '36' },
          { name: 'kind', type: 'varchar', length: '40' },
          { name: 'has_exit_code', type: 'boolean' },
          { name: 'exit_code', type: 'integer', isNullable: true },
          { name: 'diagnostic', type: 'text', isNullable: true },
          { name: 'process_started_at', type: 'text', isNullable: true },
          { name: 'process_finished_at', type: 'text', isNullable: true },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pn_process_outcomes');
  }
}
