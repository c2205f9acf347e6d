import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { SessionEntity } from '../database/session.entity.js';
import { AlreadyExistsError } from '../errors/already-exists.error.js';
import { SessionNotFoundError } from '../errors/session-not-found.error.js';
import { JournalWriter } from '../database/journal-writer.service.js';
import { idOf, requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { SessionLeases } from '../database/session-leases.service.js';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Sessions and their bearer tokens: persisted through the journal writer, cached here. With
 * several nodes (PostgreSQL) a session or token another node created is read from the database
 * on a cache miss, so it works on every node at once.
 */
@Injectable()
export class Sessions {
  private readonly byId = new Map<string, SessionEntity>();
  private readonly byTokenHash = new Map<string, string>();

  constructor(
    private readonly writer: JournalWriter,
    private readonly leases: SessionLeases,
  ) {}

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

  /**
   * The session, or `SessionNotFoundError`, looking in the database when another node may have
   * created it. Any case; not a string is a `ValidationError`.
   */
  async find(sessionId: string): Promise<SessionEntity> {
    const id = idOf(sessionId, 'session_id');
    const cached = this.byId.get(id);
    if (cached || !this.leases.enabled) return this.require(id);
    const session = await this.writer.read((manager) => manager.findOneBy(SessionEntity, { sessionId: id }));
    if (!session) throw new SessionNotFoundError(sessionId);
    this.add(session);
    return session;
  }

  /** The session from the cache (this node's sessions), or `SessionNotFoundError`. */
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
  async authenticate(token: string): Promise<string | undefined> {
    const hash = hashToken(token);
    const cached = this.byTokenHash.get(hash);
    if (cached || !this.leases.enabled) return cached;
    const session = await this.writer.read((manager) => manager.findOneBy(SessionEntity, { tokenHash: hash }));
    if (!session) return undefined;
    this.add(session);
    return session.sessionId;
  }

  /** Replaces the cache with the persisted sessions (restore at start). */
  load(sessions: readonly SessionEntity[]): void {
    this.byId.clear();
    this.byTokenHash.clear();
    for (const session of sessions) this.add(session);
  }

  /** Caches a session read from the database. */
  add(session: SessionEntity): void {
    this.byId.set(session.sessionId, session);
    if (session.tokenHash) this.byTokenHash.set(session.tokenHash, session.sessionId);
  }
}
