import type { ConsoleClients } from '../api/console-clients.js';
import type { Identity } from '../auth/identity.js';

/** What every view is given. */
export interface ViewProps {
  readonly clients: ConsoleClients;
  readonly identity: Identity;
}
