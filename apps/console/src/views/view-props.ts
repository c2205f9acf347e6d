import type { ConsoleClients } from '../api/console-clients.js';
import type { Identity } from '../auth/identity.js';

/** What the console does when the token it signed in with changes under it. */
export interface ConsoleAccount {
  /** The session's token was rotated with itself: go on with the new one (kept as the old one was). */
  replaceToken(token: string): void;
  /** The token no longer opens anything (its session was closed): back to the sign-in form, saying why. */
  signOut(notice: string): void;
}

/** What every view is given. */
export interface ViewProps {
  readonly clients: ConsoleClients;
  readonly identity: Identity;
  readonly account: ConsoleAccount;
}
