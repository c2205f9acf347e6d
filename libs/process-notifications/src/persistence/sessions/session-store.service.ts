import { Injectable } from '@nestjs/common';
import { AlreadyExistsError } from '../../errors/already-exists.error.js';
import { SessionClosedError } from '../../errors/session-closed.error.js';
import type { Session } from '../../model/session.interface.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import { hashToken, SessionCredentials } from './session-credentials.js';
import { toDomain } from './session.mapper.js';
import { SessionRows } from './session-rows.js';

/**
 * The sessions' port: their rows, their tokens and their closing, written through the journal
 * writer (fenced like every write of the session), answered as the domain's {@link Session}. A
 * token is handed in clear and stored as its hash; only this room sees the hash, and a token is
 * checked here ({@link heldSessionOfToken}, {@link sessionOfToken}), never by comparing it elsewhere.
 */
@Injectable()
export class SessionStore {
  private readonly rows = new SessionRows();

  /**
   * @param credentials the module's credentials cache, shared with `RestoreReads`, which fills it
   *   at restore; a store built alone (a test of the port) gets one of its own
   */
  constructor(
    private readonly journal: JournalWriter,
    private readonly credentials: SessionCredentials = new SessionCredentials(),
  ) {}

  /**
   * Opens a session with this bearer token (its hash stored); `AlreadyExistsError` when a session
   * with this id was ever opened.
   * @param held this node holds the session from now on (one node): its token is answered from memory
   */
  async openSession(sessionId: string, token: string, held: boolean): Promise<Session> {
    const tokenHash = hashToken(token);
    const entity = await this.journal.write(async (store) => {
      if (await this.rows.exists(store, sessionId)) throw new AlreadyExistsError('session', sessionId);
      return this.rows.insert(store, sessionId, tokenHash, new Date().toISOString());
    });
    if (held) this.credentials.hold(sessionId, tokenHash);
    return toDomain(entity);
  }

  /** The session, open or closed, read from the database; null when none has this id. */
  async sessionById(sessionId: string): Promise<Session | null> {
    const entity = await this.journal.lookup((store) => this.rows.byId(store, sessionId));
    return entity && toDomain(entity);
  }

  /**
   * Replaces an open session's token: from the commit on, the old token opens nothing (the
   * credentials cache changes right at the commit, whether or not the caller still waits).
   * `SessionClosedError` when the session is closed. Fenced like every write of the session.
   */
  rotateSessionToken(sessionId: string, token: string, onCommit: () => void = () => undefined): Promise<void> {
    const tokenHash = hashToken(token);
    return this.journal.write(async (store, journal) => {
      if (!(await this.rows.replaceToken(store, sessionId, tokenHash))) throw new SessionClosedError(sessionId, null);
      journal.afterCommit(() => {
        this.credentials.rotated(sessionId, tokenHash);
        onCommit();
      });
    }, sessionId);
  }

  /**
   * Closes a session (its token hash forgotten; its rows and journal kept) unless it is closed
   * already; resolves with when it was closed. Every later write of the session is refused with
   * `SessionClosedError`. `onCommit` runs right at the commit. Fenced like every write of the session.
   */
  async closeSession(sessionId: string, closedAt: string, onCommit: (closedAt: string) => void): Promise<string> {
    const done = this.journal.closedAtOf(sessionId);
    if (done !== undefined) return done;
    try {
      return await this.journal.write(async (store, journal) => {
        const at = await this.rows.close(store, sessionId, closedAt);
        if (at === null) throw new Error(`session ${sessionId} has no row to close`);
        journal.afterCommit(() => {
          this.journal.refuseWritesOf(sessionId, at);
          this.credentials.forget(sessionId);
          onCommit(at);
        });
        return at;
      }, sessionId);
    } catch (error) {
      // A concurrent close committed first: the same answer as a second close.
      if (error instanceof SessionClosedError && error.closedAt !== null) return error.closedAt;
      throw error;
    }
  }

  /**
   * The id of the held session a bearer token opens, from the credentials cache (no database
   * read): the hot path of authentication. The caller decides whether memory is still the truth
   * for that session (with several nodes, only while this node's lease on it is current).
   */
  heldSessionOfToken(token: string): string | undefined {
    return this.credentials.sessionOf(hashToken(token));
  }

  /** The open session a bearer token opens, read from the database (a session another node holds). */
  async sessionOfToken(token: string): Promise<Session | null> {
    const entity = await this.journal.lookup((store) => this.rows.byTokenHash(store, hashToken(token)));
    return entity && toDomain(entity);
  }

  /** This node no longer holds the session (another node owns it now): its token is checked in the database. */
  releaseCredentials(sessionId: string): void {
    this.credentials.forget(sessionId);
  }
}
