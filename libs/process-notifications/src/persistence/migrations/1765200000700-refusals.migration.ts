import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The refusals the admin read API lists (spec section 12.1), kept in the database so that a
 * restart keeps them and every node of a cluster lists the same ones. Metadata only: ids, codes,
 * the original's sequence and the names of the fields that differed, never a payload value. The
 * table is bounded (see `REFUSAL_RETENTION`): each write prunes the oldest rows.
 */
export class Refusals1765200000700 implements MigrationInterface {
  name = 'Refusals1765200000700';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'pn_refusals',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'at', type: 'varchar', length: '32' },
          { name: 'code', type: 'varchar', length: '40' },
          { name: 'cause', type: 'varchar', length: '40', isNullable: true },
          { name: 'session_id', type: 'varchar', length: '36' },
          { name: 'loop_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'command_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'event_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'original_sequence', type: 'integer', isNullable: true },
          // Comma-separated field names (a closed schema's names: no comma in any).
          { name: 'differing_fields', type: 'text', isNullable: true },
          { name: 'node_id', type: 'varchar', length: '36' },
        ],
      }),
    );
    // The search by command id lists the id's refusals beside the original.
    await queryRunner.createIndex('pn_refusals', new TableIndex({ name: 'ix_pn_refusals_command', columnNames: ['command_id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pn_refusals');
  }
}
