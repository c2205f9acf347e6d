import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The signal that ended a command (issue 47: the lifecycle record's `signal`, carried by its
 * outcome, section 14): null where the record named none. Records journaled before this release
 * could not carry a signal (the schema was closed), so every existing outcome row is right as null.
 */
export class OutcomeSignal1765400000000 implements MigrationInterface {
  name = 'OutcomeSignal1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE pn_process_outcomes ADD COLUMN signal varchar(16) NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE pn_process_outcomes DROP COLUMN signal');
  }
}
