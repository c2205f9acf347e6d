import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A persisted session. Its bearer token is kept only as a SHA-256 hash: replaced when the token
 * is rotated, and null once the session is closed (`closed_at` set), so no token opens it.
 */
@Entity({ name: 'pn_sessions' })
export class SessionEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true, unique: true })
  tokenHash: string | null;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;

  /** When the session was closed (ISO 8601), null while it is open. */
  @Column({ name: 'closed_at', type: 'varchar', length: 32, nullable: true })
  closedAt: string | null;

  /** The session's highest journal sequence, 0 when none: written only by JournalCounters. */
  @Column({ name: 'last_sequence', type: 'integer', insert: false, update: false })
  lastSequence?: number;
}
