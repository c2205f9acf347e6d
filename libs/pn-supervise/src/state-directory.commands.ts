import { EntryRecordsBuilder } from './entry-records.builder.js';
import type { ListedEntry } from './state-directory.store.js';
import { StateDirectoryStore } from './state-directory.store.js';

/**
 * `pn-supervise status` and `pn-supervise forget` (spec section 14): what the state directory
 * holds, and removing an entry nobody will deliver. Neither creates the directory nor sends
 * anything.
 */
export class StateDirectoryCommands {
  private readonly store: StateDirectoryStore;

  constructor(
    stateDir: string,
    private readonly out: (line: string) => void,
    private readonly err: (line: string) => void,
  ) {
    this.store = new StateDirectoryStore(stateDir, undefined, undefined, false);
  }

  /** One line per entry; exit status 0. */
  status(): number {
    for (const listed of this.store.list()) this.out(StateDirectoryCommands.line(listed));
    return 0;
  }

  /** Removes the entry of `commandId` if its supervisor is gone: 0; else 1 with the reason. */
  forget(commandId: string): number {
    const result = this.store.forget(commandId);
    if (result === 'forgotten') return 0;
    this.err(
      result === 'not_found'
        ? `no entry for command ${commandId} in ${this.store.directory}`
        : `the supervisor of command ${commandId} still runs; not forgotten`,
    );
    return 1;
  }

  /** `<command_id> session=… loop=… handle=… left=… supervisor=running|gone refused=no|<status>/<code>` */
  static line({ entry, running }: ListedEntry): string {
    const left: string[] = EntryRecordsBuilder.pending(entry).map((record) => record.key);
    // Not ended yet: its own supervisor will report it completed, a later run lost.
    if (!entry.completion) left.push(running ? 'completed' : 'lost', 'notification');
    const refused = entry.rejected ? `${entry.rejected.status}/${entry.rejected.code}` : 'no';
    return [
      entry.command_id,
      `session=${entry.session_id}`,
      `loop=${entry.loop_id}`,
      `handle=${entry.process_handle}`,
      `left=${left.join(',')}`,
      `supervisor=${running ? 'running' : 'gone'}`,
      `refused=${refused}`,
    ].join(' ');
  }
}
