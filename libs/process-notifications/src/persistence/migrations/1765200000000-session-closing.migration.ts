import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Closing a session (the contract's section 8, revocation): `closed_at` records when, null while
 * it is open. A closed session keeps its row, loops and journal for the admin; its `token_hash`
 * is then null, so no token opens it. Rotating a token replaces `token_hash` in place: no column.
 */
export class SessionClosing1765200000000 implements MigrationInterface {
  name = 'SessionClosing1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE pn_sessions ADD COLUMN closed_at varchar(32) NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE pn_sessions DROP COLUMN closed_at');
  }
}
