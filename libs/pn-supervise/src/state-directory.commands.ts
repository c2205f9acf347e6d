import { EntryRecordsBuilder } from './entry-records.builder.js';
import type { ListedEntry } from './state-directory.store.js';
import { StateDirectoryStore } from './state-directory.store.js';

/**
 * A value as one field of a line on a terminal: everything but printable ASCII other than the
 * space (control characters, escapes, line breaks, other scripts) and the backslash written as
 * `\xNN` or `\u{N}`, so an entry cannot rewrite the terminal or forge another field or line.
 */
const escaped = (value: string | number): string =>
  String(value).replace(/[^\x21-\x5b\x5d-\x7e]/gu, (char) => {
    const code = char.codePointAt(0)!;
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });

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

  /**
   * One line per entry, one line on stderr per file that is not an entry; then, on stderr, what
   * to do about entries whose supervisor is gone (a refused one stays until forgotten); exit
   * status 0.
   */
  status(): number {
    const { entries, skipped } = this.store.list();
    for (const listed of entries) this.out(StateDirectoryCommands.line(listed));
    for (const { name, problem } of skipped) this.err(`skipped ${name} in ${this.store.directory}: ${problem}`);
    const gone = entries.filter((listed) => listed.supervisor === 'gone');
    const refused = gone.filter((listed) => listed.entry.rejected).length;
    const forget = `pn-supervise forget COMMAND_ID --state-dir ${this.store.directory}`;
    if (refused > 0) {
      this.err(
        `${refused} entr${refused === 1 ? 'y was' : 'ies were'} refused by the server (refused=...) and never retried: ${forget} removes one`,
      );
    }
    if (gone.length > refused) {
      const waiting = gone.length - refused;
      this.err(
        `${waiting} entr${waiting === 1 ? 'y waits' : 'ies wait'} for the next run of its session with this state directory, which delivers ${waiting === 1 ? 'it' : 'them'}; ${forget} drops one undelivered`,
      );
    }
    return 0;
  }

  /** Removes the entry of `commandId` if its supervisor is gone: 0; else 1 with the reason. */
  forget(commandId: string): number {
    const result = this.store.forget(commandId);
    if (result === 'forgotten') return 0;
    const why = {
      not_found: `no entry for command ${commandId} in ${this.store.directory}`,
      running: `the supervisor of command ${commandId} still runs; not forgotten`,
      elsewhere:
        `the supervisor of command ${commandId} runs in another PID namespace or on another machine, ` +
        'where it may still run; not forgotten (forget it there, or remove its file once it is gone)',
    }[result];
    this.err(why);
    return 1;
  }

  /**
   * `<command_id> session=… loop=… handle=… left=… supervisor=running|gone|other-pid-namespace|other-machine
   * refused=no|<status>/<code>`, every value escaped.
   */
  static line({ entry, supervisor }: ListedEntry): string {
    const left: string[] = EntryRecordsBuilder.pending(entry).map((record) => record.key);
    // Not ended yet: its own supervisor will report it completed, a later run lost.
    if (!entry.completion) left.push(supervisor === 'gone' ? 'lost' : 'completed', 'notification');
    const refused = entry.rejected ? `${entry.rejected.status}/${entry.rejected.code}` : 'no';
    return [
      escaped(entry.command_id),
      `session=${escaped(entry.session_id)}`,
      `loop=${escaped(entry.loop_id)}`,
      `handle=${escaped(entry.process_handle)}`,
      `left=${left.join(',')}`,
      `supervisor=${supervisor}`,
      `refused=${escaped(refused)}`,
    ].join(' ');
  }
}
