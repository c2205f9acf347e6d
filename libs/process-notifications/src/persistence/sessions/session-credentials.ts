import { Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';

/** The stored form of a bearer token: its SHA-256, hex. The token itself is never stored. */
export function hashToken(token: string): string {
  // One-shot: a fraction of the cost of a Hash object for a string this short.
  return hash('sha256', token, 'hex');
}

/**
 * The credentials cache: the token hash of each open session this node holds (every session on
 * one node; on PostgreSQL the sessions it owns, while it owns them), so that authentication, which
 * every request goes through, is a map lookup rather than a database read. It lives here, apart
 * from the domain's session cache (`Sessions`), so no cache outside persistence holds a
 * credential. It is kept in step with the rows by `SessionStore` (open, rotate, close) and
 * `RestoreReads` (the sessions this node takes on), and forgotten when another node takes a
 * session over; a rotated or closed session's old hash is dropped as that change commits.
 *
 * Tokens are looked up by their SHA-256: the lookup's timing depends only on the hash, which an
 * attacker cannot steer byte by byte, so it leaks nothing usable about a stored token (no
 * plain-text comparison ever happens).
 */
@Injectable()
export class SessionCredentials {
  private readonly sessionOfHash = new Map<string, string>();
  private readonly hashOfSession = new Map<string, string>();

  /** The held session whose token hashes to `tokenHash`, if any. */
  sessionOf(tokenHash: string): string | undefined {
    return this.sessionOfHash.get(tokenHash);
  }

  /** Holds the session's current token hash (replacing one it held before); null forgets it (closed). */
  hold(sessionId: string, tokenHash: string | null): void {
    this.forget(sessionId);
    if (tokenHash === null) return;
    this.sessionOfHash.set(tokenHash, sessionId);
    this.hashOfSession.set(sessionId, tokenHash);
  }

  /** A rotation committed: the new hash replaces the old one, only when the session is held here. */
  rotated(sessionId: string, tokenHash: string): void {
    if (this.hashOfSession.has(sessionId)) this.hold(sessionId, tokenHash);
  }

  /** The session's token opens nothing from memory any more (closed, or another node owns it). */
  forget(sessionId: string): void {
    const before = this.hashOfSession.get(sessionId);
    if (before === undefined) return;
    this.hashOfSession.delete(sessionId);
    this.sessionOfHash.delete(before);
  }

  /** Forgets every held credential (restore of every session, at start). */
  clear(): void {
    this.sessionOfHash.clear();
    this.hashOfSession.clear();
  }
}
