import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { SessionEntity } from '../database/session.entity.js';
import { AlreadyExistsError } from '../errors/already-exists.error.js';
import { SessionNotFoundError } from '../errors/session-not-found.error.js';
import { JournalWriter } from '../database/journal-writer.service.js';
import { idOf, requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Sessions and their bearer tokens: persisted through the journal writer, cached here. */
@Injectable()
export class Sessions {
  private readonly byId = new Map<string, SessionEntity>();
  private readonly byTokenHash = new Map<string, string>();

  constructor(private readonly writer: JournalWriter) {}

  /** Opens a session (time-ordered UUIDv7 id by default) with its bearer token, never stored in clear. */
  async open(requestedId: string = uuidv7()): Promise<{ session: SessionEntity; token: string }> {
    const sessionId = requireCanonicalUuid(requestedId, 'session_id');
    const token = randomBytes(32).toString('base64url');
    const session = await this.writer.write(async (manager) => {
      if (await manager.existsBy(SessionEntity, { sessionId })) throw new AlreadyExistsError('session', sessionId);
      const entity = manager.create(SessionEntity, { sessionId, tokenHash: hashToken(token), createdAt: new Date().toISOString() });
      await manager.insert(SessionEntity, entity);
      return entity;
    });
    this.add(session);
    return { session, token };
  }

  /** The session, or `SessionNotFoundError`. Any case; not a string is a `ValidationError`. */
  require(sessionId: string): SessionEntity {
    const session = this.byId.get(idOf(sessionId, 'session_id'));
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  }

  /**
   * The session a bearer token opens, or undefined. Tokens are looked up by their SHA-256: the
   * lookup's timing depends only on the hash, which an attacker cannot steer byte by byte, so
   * it leaks nothing usable about a stored token (no plain-text comparison ever happens).
   */
  authenticate(token: string): string | undefined {
    return this.byTokenHash.get(hashToken(token));
  }

  /** Replaces the cache with the persisted sessions (restore at start). */
  load(sessions: readonly SessionEntity[]): void {
    this.byId.clear();
    this.byTokenHash.clear();
    for (const session of sessions) this.add(session);
  }

  private add(session: SessionEntity): void {
    this.byId.set(session.sessionId, session);
    if (session.tokenHash) this.byTokenHash.set(session.tokenHash, session.sessionId);
  }
}
