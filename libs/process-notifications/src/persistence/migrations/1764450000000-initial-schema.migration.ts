import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Journal, sessions and loops. Written with TypeORM's schema API so it runs on SQLite and PostgreSQL. */
export class InitialSchema1764450000000 implements MigrationInterface {
  name = 'InitialSchema1764450000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'pn_journal',
        columns: [
          { name: 'sequence', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'session_id', type: 'varchar', length: '36' },
          { name: 'loop_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'kind', type: 'varchar', length: '40' },
          { name: 'idempotency_id', type: 'varchar', length: '80' },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          { name: 'payload', type: 'text' },
          { name: 'cause_command_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'created_at', type: 'varchar', length: '32' },
        ],
      }),
    );
    await queryRunner.createIndex(
      'pn_journal',
      new TableIndex({ name: 'uq_pn_journal_idempotency', columnNames: ['session_id', 'idempotency_id'], isUnique: true }),
    );
    await queryRunner.createIndex(
      'pn_journal',
      new TableIndex({ name: 'ix_pn_journal_cause', columnNames: ['session_id', 'cause_command_id'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'pn_sessions',
        columns: [
          { name: 'session_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'token_hash', type: 'varchar', length: '64', isNullable: true, isUnique: true },
          { name: 'created_at', type: 'varchar', length: '32' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'pn_loops',
        columns: [
          { name: 'session_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'loop_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'engine', type: 'varchar', length: '16' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'varchar', length: '32' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pn_loops');
    await queryRunner.dropTable('pn_sessions');
    await queryRunner.dropTable('pn_journal');
  }
}
