import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A persisted session. Its bearer token is kept only as a SHA-256 hash. */
@Entity({ name: 'pn_sessions' })
export class SessionEntity {
  @PrimaryColumn({ name: 'session_id', type: 'varchar', length: 36 })
  sessionId: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64, nullable: true, unique: true })
  tokenHash: string | null;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt: string;

  /** The session's highest journal sequence, 0 when none: written only by JournalCounters. */
  @Column({ name: 'last_sequence', type: 'integer', insert: false, update: false })
  lastSequence?: number;
}
