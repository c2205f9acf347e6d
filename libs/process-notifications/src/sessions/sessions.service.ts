import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Session } from '../model/session.interface.js';
import { SessionNotFoundError } from '../errors/session-not-found.error.js';
import { SessionClosedError } from '../errors/session-closed.error.js';
import { SessionStore } from '../persistence/sessions/session-store.service.js';
import { DEFAULT_SESSION_CACHE_SIZE, PROCESS_NOTIFICATIONS_OPTIONS } from '../process-notifications.module-definition.js';
import type { ProcessNotificationsModuleOptions } from '../process-notifications-options.interface.js';
import { requireCanonicalUuid } from '../validation/canonical-uuid.decorator.js';
import { SessionLeases } from '../persistence/leases/session-leases.service.js';
import { BoundedCache } from './bounded-cache.js';
import { Topology } from '../topology/topology.js';

/** A new bearer token: 256 random bits, shown once; the store keeps only its hash. */
function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Sessions, persisted through the session store, held here as the domain's {@link Session}, which
 * carries no credential. On SQLite every session is this process's and all are held. With several
 * nodes (PostgreSQL) the sessions this node owns are held while it owns them; a session of another
 * node is read from the database on a miss and kept in a bounded cache (journal reads), so a
 * node's memory does not grow with every session it has ever seen.
 *
 * Tokens are checked by the store (`SessionStore.heldSessionOfToken`, `sessionOfToken`): it keeps
 * the hashes of the tokens of the sessions this node holds in a credentials cache of its own, in
 * persistence, so authentication stays a map lookup. Another node's token is read from the
 * database at every use, never cached: its owner may rotate it or close its session at any time,
 * and from that commit on no node may take the old token.
 */
@Injectable()
export class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly others: BoundedCache<string, Session>;

  constructor(
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
  async open(requestedId: string = uuidv7()): Promise<{ session: Session; token: string }> {
    const sessionId = requireCanonicalUuid(requestedId, 'session_id');
    const token = newToken();
    // On one node this node holds every session at once, so the store holds its token too.
    const session = await this.store.openSession(sessionId, token, this.holdsEverySession());
    this.add(session);
    return { session, token };
  }

  /**
   * The session, or `SessionNotFoundError`, looking in the database when another node may have
   * created it. The id as normalised where it entered the library (see `normaliseId`).
   */
  async find(sessionId: string): Promise<Session> {
    const cached = this.cached(sessionId);
    if (cached) return cached;
    // Another node may have created it; on one node, what memory lacks does not exist.
    const session = await this.topology.acrossNodes(() => this.store.sessionById(sessionId));
    if (!session) throw new SessionNotFoundError(sessionId);
    this.add(session);
    return session;
  }

  /** The session from memory (this node's sessions), or `SessionNotFoundError`. */
  require(sessionId: string): Session {
    const session = this.cached(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    return session;
  }

  /**
   * The session a bearer token opens, or undefined: from the store's credentials cache for a
   * session this node holds, else from the database (see `SessionStore`).
   */
  async authenticate(token: string): Promise<string | undefined> {
    const held = this.store.heldSessionOfToken(token);
    // Memory is the truth with several nodes only while this node's lease is current: a node that
    // froze past it may hold a token that the session's next owner has rotated since.
    if (held !== undefined && this.topology.holds(() => this.leases.epochOf(held) !== undefined)) return held;
    const session = await this.topology.acrossNodes(() => this.store.sessionOfToken(token));
    if (!session) return undefined;
    this.add(session);
    return session.sessionId;
  }

  /**
   * Gives a session this node owns (see `SessionOwnership.own`) a new bearer token, shown once:
   * from the commit on, the old token opens nothing, on any node. `SessionClosedError` when the
   * session is closed.
   */
  async rotateToken(session: Session): Promise<string> {
    if (session.closedAt) throw new SessionClosedError(session.sessionId, session.closedAt);
    const token = newToken();
    await this.store.rotateSessionToken(session.sessionId, token);
    return token;
  }

  /**
   * Closes a session this node owns: its token opens nothing from the commit on, its writes are
   * refused with `SessionClosedError`, and it stays readable with the admin token. A second close
   * answers the first one's time.
   */
  async close(session: Session): Promise<string> {
    if (session.closedAt) return session.closedAt;
    return this.store.closeSession(session.sessionId, new Date().toISOString(), (closedAt) => {
      // A closed session is a new value: whichever cache holds the open one gets the closed one.
      const closed: Session = { ...session, closedAt };
      if (this.byId.has(session.sessionId)) this.byId.set(session.sessionId, closed);
      else if (this.others.get(session.sessionId)) this.others.set(session.sessionId, closed);
    });
  }

  /** Throws `SessionClosedError` when the session is closed: for the writes it refuses. */
  requireOpen(session: Session): Session {
    if (session.closedAt) throw new SessionClosedError(session.sessionId, session.closedAt);
    return session;
  }

  /** Replaces the held sessions with the persisted ones (restore at start, SQLite). */
  load(sessions: readonly Session[]): void {
    this.byId.clear();
    for (const session of sessions) this.hold(session);
  }

  // Keeps a session read from the database or just opened: held on SQLite, in the bounded cache
  // with several nodes until this node takes it over (hold).
  private add(session: Session): void {
    if (this.holdsEverySession()) return this.hold(session);
    if (this.byId.has(session.sessionId)) return;
    this.others.set(session.sessionId, session);
  }

  // On one node every session is this node's: held at once.
  private holdsEverySession(): boolean {
    return this.topology.holds(() => false);
  }

  /**
   * Holds a session this node owns (restored at its takeover, its token held by the store as it
   * read it) until {@link release}.
   */
  hold(session: Session): void {
    this.others.delete(session.sessionId);
    this.byId.set(session.sessionId, session);
  }

  /** Another node owns the session now: it goes back to the bounded cache, its token to the database. */
  release(sessionId: string): void {
    const session = this.byId.get(sessionId);
    this.store.releaseCredentials(sessionId);
    if (!session) return;
    this.byId.delete(sessionId);
    this.add(session);
  }

  private cached(sessionId: string): Session | undefined {
    return this.byId.get(sessionId) ?? this.others.get(sessionId);
  }
}
