/**
 * A session as the domain knows it: its id and whether it is open. It holds no credential: its
 * bearer token is checked by the session store (`SessionStore.sessionOfToken`), which alone sees
 * the token's stored hash, so no cache of sessions can leak or keep a stale one. A closed session
 * is a new value (`closedAt` set), not a changed one.
 */
export interface Session {
  /** Lower-case canonical UUID. */
  readonly sessionId: string;
  /** When it was opened (ISO 8601). */
  readonly createdAt: string;
  /** When it was closed (ISO 8601), null while it is open. */
  readonly closedAt: string | null;
}
