import { Inject, Injectable } from '@nestjs/common';
import { hash, randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { SessionEntity } from '../persistence/sessions/session.entity.js';
import { SessionRows } from '../persistence/sessions/session-rows.js';
import { AlreadyExistsError } from '../errors/already-exists.error.js';
import { SessionNotFoundError } from '../errors/session-not-found.error.js';
import { SessionClosedError } from '../errors/session-closed.error.js';
import { JournalWriter } from '../persistence/journal/journal-writer.service.js';
import { SessionStore } from '../persistence/sessions/session-store.service.js';
import { DEFAULT_SESSION_CACHE_SIZE, PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { idOf, requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { SessionLeases } from '../persistence/leases/session-leases.service.js';
import { BoundedCache } from './bounded-cache.js';
import { Topology } from '../topology/topology.js';

function hashToken(token: string): string {
  // One-shot: a fraction of the cost of a Hash object for a string this short.
  return hash('sha256', token, 'hex');
}

/**
 * Sessions and their bearer tokens: persisted through the journal writer, held here. On SQLite
 * every session is this process's and all are held. With several nodes (PostgreSQL) the sessions
 * this node owns are held while it owns them, with their tokens; a session of another node is
 * read from the database on a miss and kept in a bounded cache (journal reads), so a node's
 * memory does not grow with every session it has ever seen. Another node's token is read from
 * the database at every use, never cached: its owner may rotate it or close its session at any
 * time, and from that commit on no node may take the old token.
 */
@Injectable()
export class Sessions {
  private readonly byId = new Map<string, SessionEntity>();
  private readonly byTokenHash = new Map<string, string>();
  private readonly others: BoundedCache<string, SessionEntity>;
  private readonly rows = new SessionRows();

  constructor(
    private readonly writer: JournalWriter,
    private readonly store: SessionStore,
    private readonly leases: SessionLeases,
    private readonly topology: Topology,
    @Inject(PROCESS_NOTIFICATIONS_OPTIONS) options: ProcessNotificationsModuleOptions,
  ) {
    const size = options.sessionCacheSize ?? DEFAULT_SESSION_CACHE_SIZE;
    if (!Number.isSafeInteger(size) || size < 1) throw new Error(`sessionCacheSize must be a positive integer, got ${String(size)}`);
    this.others = new BoundedCache(size);
  }

  /** Opens a session (time-ordered UUIDv7 id by default) with its bearer token, never stored in clear. */
  async open(requestedId: string = uuidv7()): Promise<{ session: SessionEntity; token: string }> {
    const sessionId = requireCanonicalUuid(requestedId, 'session_id');
    const token = randomBytes(32).toString('base64url');
    const session = await this.writer.write(async (store) => {
      if (await this.rows.exists(store, sessionId)) throw new AlreadyExistsError('session', sessionId);
      return this.rows.insert(store, sessionId, hashToken(token), new Date().toISOString());
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
    const cached = this.cached(id);
    if (cached) return cached;
    // Another node may have created it; on one node, what memory lacks does not exist.
    const session = await this.topology.acrossNodes(() => this.writer.lookup((store) => this.rows.byId(store, id)));
    if (!session) throw new SessionNotFoundError(sessionId);
    this.add(session);
    return session;
  }

  /** The session from memory (this node's sessions), or `SessionNotFoundError`. */
  require(sessionId: string): SessionEntity {
    const session = this.cached(idOf(sessionId, 'session_id'));
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
    const held = this.byTokenHash.get(hash);
    // Memory is the truth with several nodes only while this node's lease is current: a node that
    // froze past it may hold a token that the session's next owner has rotated since.
    if (held && this.topology.holds(() => this.leases.epochOf(held) !== undefined)) return held;
    const session = await this.topology.acrossNodes(() => this.store.sessionOfToken(hash));
    if (!session) return undefined;
    this.add(session);
    return session.sessionId;
  }

  /**
   * Gives a session this node owns (see `SessionOwnership.own`) a new bearer token, shown once:
   * from the commit on, the old token opens nothing, on any node. `SessionClosedError` when the
   * session is closed.
   */
  async rotateToken(session: SessionEntity): Promise<string> {
    if (session.closedAt) throw new SessionClosedError(session.sessionId, session.closedAt);
    const token = randomBytes(32).toString('base64url');
    const tokenHash = hashToken(token);
    await this.store.rotateSessionToken(session.sessionId, tokenHash, () => {
      if (session.tokenHash) this.byTokenHash.delete(session.tokenHash);
      session.tokenHash = tokenHash;
      if (this.byId.get(session.sessionId) === session) this.byTokenHash.set(tokenHash, session.sessionId);
    });
    return token;
  }

  /**
   * Closes a session this node owns: its token opens nothing from the commit on, its writes are
   * refused with `SessionClosedError`, and it stays readable with the admin token. A second close
   * answers the first one's time.
   */
  async close(session: SessionEntity): Promise<string> {
    if (session.closedAt) return session.closedAt;
    return this.store.closeSession(session.sessionId, new Date().toISOString(), (closedAt) => {
      if (session.tokenHash) this.byTokenHash.delete(session.tokenHash);
      session.tokenHash = null;
      session.closedAt = closedAt;
    });
  }

  /** Throws `SessionClosedError` when the session is closed: for the writes it refuses. */
  requireOpen(session: SessionEntity): SessionEntity {
    if (session.closedAt) throw new SessionClosedError(session.sessionId, session.closedAt);
    return session;
  }

  /** Replaces the held sessions with the persisted ones (restore at start, SQLite). */
  load(sessions: readonly SessionEntity[]): void {
    this.byId.clear();
    this.byTokenHash.clear();
    for (const session of sessions) this.hold(session);
  }

  // Keeps a session read from the database or just opened: held on SQLite, in the bounded cache
  // with several nodes until this node takes it over (hold).
  private add(session: SessionEntity): void {
    // On one node every session is this node's: held at once.
    if (this.topology.holds(() => false)) return this.hold(session);
    if (this.byId.has(session.sessionId)) return;
    this.others.set(session.sessionId, session);
  }

  /** Holds a session this node owns (restored at its takeover) until {@link release}. */
  hold(session: SessionEntity): void {
    this.others.delete(session.sessionId);
    // A token this node held for the session before (it owned it once) may have been rotated since.
    const before = this.byId.get(session.sessionId);
    if (before?.tokenHash && before.tokenHash !== session.tokenHash) this.byTokenHash.delete(before.tokenHash);
    this.byId.set(session.sessionId, session);
    if (session.tokenHash && !session.closedAt) this.byTokenHash.set(session.tokenHash, session.sessionId);
  }

  /** Another node owns the session now: it goes back to the bounded cache. */
  release(sessionId: string): void {
    const session = this.byId.get(sessionId);
    if (!session) return;
    this.byId.delete(sessionId);
    if (session.tokenHash) this.byTokenHash.delete(session.tokenHash);
    this.add(session);
  }

  private cached(sessionId: string): SessionEntity | undefined {
    return this.byId.get(sessionId) ?? this.others.get(sessionId);
  }
}
