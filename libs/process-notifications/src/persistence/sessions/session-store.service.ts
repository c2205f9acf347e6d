import { Injectable } from '@nestjs/common';
import { SessionClosedError } from '../../errors/session-closed.error.js';
import { JournalWriter } from '../journal/journal-writer.service.js';
import type { SessionEntity } from './session.entity.js';
import { SessionRows } from './session-rows.js';

/**
 * A session's token and its closing, written through the journal writer (fenced like every write
 * of the session): split from the writer, which keeps only the rule that no write of a closed
 * session commits.
 */
@Injectable()
export class SessionStore {
  private readonly rows = new SessionRows();

  constructor(private readonly journal: JournalWriter) {}

  /**
   * Replaces an open session's token hash: from the commit on, the old token opens nothing
   * (`onCommit` runs right at the commit, whether or not the caller still waits).
   * `SessionClosedError` when the session is closed. Fenced like every write of the session.
   */
  rotateSessionToken(sessionId: string, tokenHash: string, onCommit: () => void): Promise<void> {
    return this.journal.write(async (store, journal) => {
      if (!(await this.rows.replaceToken(store, sessionId, tokenHash))) throw new SessionClosedError(sessionId, null);
      journal.afterCommit(onCommit);
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

  /** The open session a token hash opens, read from the database. */
  sessionOfToken(tokenHash: string): Promise<SessionEntity | null> {
    return this.journal.lookup((store) => this.rows.byTokenHash(store, tokenHash));
  }
}
