import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { JournalUnavailableError } from '../errors/journal-unavailable.error.js';
import { OwnerUnavailableError } from '../errors/owner-unavailable.error.js';
import { ProcessNotificationsError } from '../errors/process-notifications.error.js';
import { Loops } from '../loops/loops.service.js';
import type { Session } from '../model/session.interface.js';
import { JournalRestore } from '../restore/journal-restore.service.js';
import { Sessions } from '../sessions/sessions.service.js';
import { SessionLeases } from '../persistence/leases/session-leases.service.js';
import { Topology } from '../topology/topology.js';

// How long a request for another node's session waits on the database before it is forwarded
// to the owner the database named last.
const LOCATE_PATIENCE_MS = 300;
// Sessions whose last owner is remembered.
const LAST_OWNERS = 10_000;
// How long a takeover may keep a request waiting (a node cut from the database answers within
// 2 s); the takeover goes on, and the client's retry finds it done.
const CLAIM_PATIENCE_MS = 1_500;

/** Where a session's requests are answered (see `ProcessNotificationsService.locateOwner`). */
export type SessionOwner =
  | { readonly kind: 'self' }
  | { readonly kind: 'node'; readonly nodeId: string; readonly url: string; readonly retryAfterSeconds: number }
  | { readonly kind: 'none' };

/**
 * Makes this node the owner of a session before anything reads or changes its loops: on
 * PostgreSQL it takes the session's lease when no live node holds it and restores the session
 * from the journal, or refuses with `OwnerUnavailableError` while another live node holds it.
 * On SQLite every session is this process's.
 */
@Injectable()
export class SessionOwnership implements OnModuleDestroy {
  // One takeover per session at a time; concurrent callers wait for the same one.
  private readonly claims = new Map<string, Promise<void>>();
  private readonly lostSubscription: Subscription;
  // The owner the database named last for sessions of other nodes (oldest first, bounded).
  private readonly lastOwner = new Map<string, SessionOwner & { kind: 'node' }>();

  constructor(
    private readonly leases: SessionLeases,
    private readonly topology: Topology,
    private readonly sessions: Sessions,
    private readonly loops: Loops,
    private readonly restore: JournalRestore,
  ) {
    this.lostSubscription = leases.lost$.subscribe((sessionId) => {
      this.loops.unloadSession(sessionId);
      this.sessions.release(sessionId);
    });
  }

  /**
   * Resolves with the session once this node owns it (its loops are then loaded), so the caller
   * looks its loops up in it without asking {@link Sessions} again; `SessionNotFoundError` for an
   * unknown session, `OwnerUnavailableError` while another live node owns it. The id as normalised
   * where it entered the library (see `normaliseId`).
   */
  async own(sessionId: string): Promise<Session> {
    await this.topology.acrossNodes(async () => {
      if (this.leases.epochOf(sessionId) === undefined) await this.takeOver(sessionId);
    });
    return this.sessions.require(sessionId);
  }

  /**
   * {@link own}, for a write: `SessionClosedError` when the session is closed (checked again in
   * the journal writer's queue, so no write of it commits after the close).
   */
  async ownOpen(sessionId: string): Promise<Session> {
    return this.sessions.requireOpen(await this.own(sessionId));
  }

  // Waits for this node's takeover of the session, at most CLAIM_PATIENCE_MS.
  private async takeOver(id: string): Promise<void> {
    let claim = this.claims.get(id);
    if (!claim) {
      claim = this.claim(id)
        .catch((error: unknown) => {
          throw error instanceof ProcessNotificationsError ? error : new JournalUnavailableError(error);
        })
        .finally(() => this.claims.delete(id));
      this.claims.set(id, claim);
    }
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new JournalUnavailableError(new Error(`the session's lease could not be checked within ${CLAIM_PATIENCE_MS} ms`))),
        CLAIM_PATIENCE_MS,
      );
    });
    try {
      await Promise.race([claim, patience]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Where the session is answered now, without taking it over (`none`: by whoever asks next).
   * When the database is slow to say (cut off, stalled), the owner it named last is answered
   * after {@link LOCATE_PATIENCE_MS}: a request for another node's session is forwarded without
   * waiting on the database (the owner checks its own lease).
   */
  async locate(sessionId: string): Promise<SessionOwner> {
    if (this.topology.holds(() => this.leases.epochOf(sessionId) !== undefined)) return { kind: 'self' };
    const lookup = this.leases.locate(sessionId).then((where): SessionOwner => {
      if (where.owner !== 'node') {
        this.lastOwner.delete(sessionId);
        return { kind: 'none' };
      }
      const owner = { kind: 'node', nodeId: where.nodeId, url: where.url, retryAfterSeconds: where.retryAfterSeconds } as const;
      this.lastOwner.delete(sessionId);
      this.lastOwner.set(sessionId, owner);
      if (this.lastOwner.size > LAST_OWNERS) this.lastOwner.delete(this.lastOwner.keys().next().value!);
      return owner;
    });
    const last = this.lastOwner.get(sessionId);
    if (!last) return lookup;
    lookup.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<SessionOwner>((resolve) => (timer = setTimeout(() => resolve(last), LOCATE_PATIENCE_MS)));
    try {
      return await Promise.race([lookup, patience]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async claim(sessionId: string): Promise<void> {
    const where = await this.leases.locate(sessionId);
    const held = this.leases.heldEpoch(sessionId);
    if (held !== undefined) {
      // This node's heartbeat went stale (frozen, or the database was away): still its own?
      if (where.owner === 'self' && where.epoch === held) {
        await this.leases.heartbeat();
        return;
      }
      this.leases.lose(sessionId, held);
    }
    if (where.owner === 'node') {
      throw new OwnerUnavailableError(sessionId, where.retryAfterSeconds, `node ${where.nodeId} owns it`);
    }
    const epoch = await this.leases.acquire(sessionId).catch((error: unknown) => {
      // lock_timeout: the old owner is frozen inside a transaction; its connection times out.
      if ((error as { code?: string }).code === '55P03') throw new OwnerUnavailableError(sessionId, 1, 'the old owner is still committing');
      throw error;
    });
    if (epoch === undefined) {
      const now = await this.leases.locate(sessionId);
      throw new OwnerUnavailableError(sessionId, now.owner === 'node' ? now.retryAfterSeconds : 1, 'another node took it first');
    }
    // The steal waited for the old owner's last transaction: the journal read now is complete.
    await this.restore.restoreSession(sessionId);
    this.leases.hold(sessionId, epoch);
  }

  onModuleDestroy(): void {
    this.lostSubscription.unsubscribe();
  }
}
