import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Nodes and session leases, for several nodes on one PostgreSQL database (spec section 9).
 * SQLite serves one process and gets no such tables. Expiry uses the database's clock, so the
 * nodes' clocks never need to agree.
 */
export class SessionLeases1764800000000 implements MigrationInterface {
  name = 'SessionLeases1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    await queryRunner.query(`CREATE TABLE pn_nodes (
      node_id varchar(36) PRIMARY KEY,
      url varchar(2048) NOT NULL,
      expires_at timestamptz NOT NULL
    )`);
    // A session's lease lasts while its owner node's heartbeat does: one UPDATE renews them all.
    await queryRunner.query(`CREATE TABLE pn_session_leases (
      session_id varchar(36) PRIMARY KEY,
      owner_node varchar(36) NOT NULL,
      epoch bigint NOT NULL
    )`);
    await queryRunner.query('CREATE INDEX ix_pn_session_leases_owner ON pn_session_leases (owner_node)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type !== 'postgres') return;
    await queryRunner.query('DROP TABLE pn_session_leases');
    await queryRunner.query('DROP TABLE pn_nodes');
  }
}
